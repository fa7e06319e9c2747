package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/browsertest"
)

// gitHubCSS is the part of GitHub's markdown stylesheet that decides how
// wide a table is and where a cell wraps: the 888-px content column of a
// pull request's description at the default window width, its font, and
// its table and cell rules (display: block; width: max-content; cells
// padded 6px 13px).
const gitHubCSS = `
body { margin: 0; }
.markdown-body { box-sizing: border-box; width: 888px; padding: 0;
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
  font-size: 16px; line-height: 1.5; word-wrap: break-word; }
.markdown-body table { border-spacing: 0; border-collapse: collapse; display: block;
  width: max-content; max-width: 100%; overflow: auto; }
.markdown-body td, .markdown-body th { padding: 6px 13px; border: 1px solid #d0d7de; }
.markdown-body th { font-weight: 600; }
`

// wrappedCells is the browser's answer: the text of every cell of the
// first table whose text runs over more than one line, and a line saying
// so when the table is wider than the column (GitHub would scroll it).
const wrappedCells = `(() => {
  const t = document.querySelector('table');
  const out = [];
  if (t.scrollWidth > t.clientWidth + 1) {
    const ws = [...t.querySelectorAll('tr:first-child th')].map(c => Math.round(c.getBoundingClientRect().width));
    out.push('the table is ' + t.scrollWidth + ' px wide in ' + t.clientWidth + ' px; columns ' + ws.join(', '));
  }
  for (const c of t.querySelectorAll('th, td')) {
    const r = document.createRange();
    r.selectNodeContents(c);
    const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
    if (tops.size > 1) out.push(c.textContent);
  }
  return out;
})()`

// assertFitsGitHub renders md as GitHub does (goldmark GFM) in headless
// Chromium inside an 888-px column with GitHub's table rules and fails on
// any cell of the visible table that wraps. Skipped only where no
// Chromium is installed (.ci/run installs Debian's).
func assertFitsGitHub(t *testing.T, md string) {
	t.Helper()
	path := browsertest.Path()
	if path == "" {
		t.Log("chromium is not installed (Debian: apt-get install chromium): the 888-px check did not run")
		return
	}
	html := renderGFM(t, md)
	vis, _, _ := strings.Cut(html, "<details>")
	page := "<!doctype html><meta charset=utf-8><style>" + gitHubCSS + "</style><div class=markdown-body>" + vis + "</div>"
	dir := t.TempDir()
	file := filepath.Join(dir, "pr.html")
	require.NoError(t, os.WriteFile(file, []byte(page), 0o644))
	ctx := browsertest.Start(t, path, 1280, 900)
	var wrapped []string
	require.NoError(t, chromedp.Run(ctx, chromedp.Navigate("file://"+file), chromedp.Evaluate(wrappedCells, &wrapped)))
	require.Empty(t, wrapped, "cells that wrap in GitHub's 888-px column, or a table wider than it")
}

// busyLoops starts n real busy processes for the rest of the test and
// waits until the machine shows them: CPU pressure or the load average
// past the limits a campaign warns at (journal.PressureLimit,
// journal.Loaded).
func busyLoops(t *testing.T, n int) {
	t.Helper()
	for range n {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		require.NoError(t, cmd.Start())
		t.Cleanup(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		})
	}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		l := journal.ReadLoad()
		if l.Pressure > journal.PressureLimit || journal.Loaded(l.Avg1, journal.ReadEnv().NCPU) {
			return
		}
		time.Sleep(time.Second)
	}
	b, _ := os.ReadFile("/proc/loadavg")
	p, _ := os.ReadFile("/proc/pressure/cpu")
	t.Fatalf("%d busy loops did not load the machine in 90 s: loadavg %s, pressure %s (nproc %s)", n, b, p, strconv.Itoa(journal.ReadEnv().NCPU))
}
