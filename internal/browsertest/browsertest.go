// Package browsertest starts the headless Chromium that tests drive to
// look at what hbgkit shows a person (the swimlane page, the markdown of
// a pull request at GitHub's width). Like net/http/httptest it is for
// tests only. Its opinion: a browser test is skipped only where no
// Chromium is installed (.ci/run installs Debian's), never on a failure.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Path returns the Chromium to drive: Debian's chromium, or another
// build on PATH; "" when none is installed.
func Path() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Start starts Chromium at path, headless with a fresh profile and a
// window of width × height, and returns a tab's context, cancelled with
// the browser and the profile removed when t ends. The context times out
// after 90 seconds.
func Start(t testing.TB, path string, width, height int) context.Context {
	t.Helper()
	// A fresh profile, removed after the browser is gone. Not t.TempDir:
	// Chromium's helper processes may still write to it for a moment
	// after the browser is cancelled, and its removal would then fail the
	// test; here the removal retries instead.
	profile, err := os.MkdirTemp("", "hbgkit-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(profile),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("no-first-run", true),
		chromedp.WindowSize(width, height),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelT()
		cancelC()
		cancelA()
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove the browser profile %s", profile)
	})
	return ctx
}
