package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/hbgkit/hbgkit/internal/hugeheap"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var pageDataRe = regexp.MustCompile(`(?s)<script id="swimlane-data" type="application/json">(.*?)</script>`)

// TestGenerations runs pprof, swimlane --html and gaps on a log of every
// generation the project reads: each span is one sample, the page holds
// every span of the JSON swimlane, and gaps asks for records.
func TestGenerations(t *testing.T) {
	for _, name := range []string{"hbg-e1.log", "hbg-e2.log", "hbg-e3-spool.log", "hbg-pr1870.log", "hbg-e1-two-ranks-shared-t0x.log"} {
		t.Run(name, func(t *testing.T) {
			log, err := filepath.Abs(filepath.Join("../../fixtures", name))
			require.NoError(t, err)
			stdout, stderr, code, dir := laneExec(t, nil, "", "swimlane", log, "-o", "sw.json", "--html", "sw.html")
			require.Equal(t, 0, code, stderr)
			doc := laneReadDoc(t, filepath.Join(dir, "sw.json"))
			events := 0
			for _, e := range doc["traceEvents"].([]any) {
				if e.(map[string]any)["ph"] == "X" {
					events++
				}
			}
			devices := len(doc["unalignedDeviceSpans"].([]any))
			require.Positive(t, events)
			page, err := os.ReadFile(filepath.Join(dir, "sw.html"))
			require.NoError(t, err)
			m := pageDataRe.FindSubmatch(page)
			require.NotNil(t, m)
			var data struct {
				Spans []int64 `json:"spans"`
				Binds []any   `json:"binds"`
			}
			require.NoError(t, json.Unmarshal(m[1], &data))
			assert.Equal(t, events*8, len(data.Spans), "every host span is on the page")
			assert.NotEmpty(t, data.Binds, "the selector has binds")
			assert.Contains(t, stdout, "Wrote HTML swimlane: sw.html")

			// Per invocation: every bind has its round label.
			stdout, stderr, code, _ = laneExec(t, nil, "", "pprof", log, "--per-invocation", "-o", "p.pb.gz")
			require.Equal(t, 0, code, stderr)
			assert.True(t, strings.HasPrefix(stdout, "Wrote span profile: p.pb.gz ("), stdout)
			b, err := os.ReadFile("p.pb.gz")
			require.NoError(t, err)
			p, err := profile.Parse(bytes.NewReader(b))
			require.NoError(t, err)
			require.NoError(t, p.CheckValid())
			var host, dev int
			var spans int64
			bind := false
			for _, s := range p.Sample {
				spans += s.Value[2]
				if s.Value[0] > 0 || s.Value[1] == 0 {
					host++
				} else {
					dev++
				}
				if f := s.Location[0].Line[0].Function.Name; f == "chip.run.bind" || f == "simpler_run.bind" {
					bind = true
					assert.NotEmpty(t, s.Label["round"], "a bind has its rounds row")
				}
			}
			assert.Equal(t, int64(events+devices), spans, "every span is counted")
			assert.True(t, bind)
			assert.LessOrEqual(t, dev, devices)
			perInv := p.Sample

			// By default invocations are merged: fewer samples, the same
			// spans and the same self time per stack.
			_, stderr, code, _ = laneExec(t, nil, "", "pprof", log, "-o", "q.pb.gz")
			require.Equal(t, 0, code, stderr)
			b, err = os.ReadFile("q.pb.gz")
			require.NoError(t, err)
			q, err := profile.Parse(bytes.NewReader(b))
			require.NoError(t, err)
			assert.Less(t, len(q.Sample), len(perInv))
			assert.Equal(t, valuesByStack(perInv), valuesByStack(q.Sample))
			for _, s := range q.Sample {
				assert.NotContains(t, s.Label, "inv")
				assert.NotContains(t, s.Label, "round")
			}

			_, stderr, code, _ = laneExec(t, nil, "", "gaps", log)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, "no graph_submit records")
		})
	}
}

func TestPprofCommandErrors(t *testing.T) {
	_, stderr, code, _ := laneExec(t, nil, "", "pprof", "x.log")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-o OUT.pb.gz is required")
	_, stderr, code, _ = laneExec(t, nil, "", "pprof", "missing.log", "-o", "p.pb.gz")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "hbgtrace: ")
}

// TestOutputRuleForProfilesAndPages: pprof and swimlane --html follow the
// -o rule of every command: - is standard output (the "Wrote" line then
// goes to stderr), a directory is an error that leaves it alone.
func TestOutputRuleForProfilesAndPages(t *testing.T) {
	t.Parallel()
	log := filepath.Join("..", "..", "fixtures", "hbg-e1.log")
	var stdout, stderr bytes.Buffer
	code := run([]string{"pprof", log, "-o", "-"}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	p, err := profile.Parse(bytes.NewReader(stdout.Bytes()))
	require.NoError(t, err, "stdout holds the profile")
	assert.NotEmpty(t, p.Sample)
	assert.Contains(t, stderr.String(), "Wrote span profile: -")

	stdout.Reset()
	stderr.Reset()
	code = run([]string{"swimlane", log, "--html", "-"}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.True(t, strings.HasPrefix(stdout.String(), "<!DOCTYPE html>") || strings.HasPrefix(stdout.String(), "<!doctype html>"), stdout.String()[:min(60, stdout.Len())])
	assert.Contains(t, stderr.String(), "Wrote HTML swimlane: -")

	dir := t.TempDir()
	for _, args := range [][]string{{"pprof", log, "-o", dir}, {"swimlane", log, "--html", dir}} {
		stdout.Reset()
		stderr.Reset()
		code = run(args, strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, 1, code, "%v: %s", args, stderr.String())
		assert.Contains(t, stderr.String(), "directory", "%v", args)
		st, err := os.Stat(dir)
		require.NoError(t, err)
		assert.True(t, st.IsDir(), "the directory is left alone")
	}
}

// valuesByStack sums each sample type per stack of function names.
func valuesByStack(samples []*profile.Sample) map[string][3]int64 {
	out := make(map[string][3]int64)
	for _, s := range samples {
		var k strings.Builder
		for _, l := range s.Location {
			k.WriteString(l.Line[0].Function.Name)
			k.WriteByte(';')
		}
		v := out[k.String()]
		for i := range v {
			v[i] += s.Value[i]
		}
		out[k.String()] = v
	}
	return out
}

// TestPprofHoldsNotTheLog: pprof builds its profile as the log streams,
// keeping 40 bytes a span and none of its text. A 32 MB log of 16,000
// spans with 2 KB of attributes each is profiled with a heap (sampled
// every 2 ms, garbage included) that grows by less than the log: 12–26 MB
// in 2026-12-04's runs, where the whole log and its swimlane took 61–66
// MB before, as --per-invocation, which needs the log's invocations and
// still reads it whole, does now.
func TestPprofHoldsNotTheLog(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 32 MB log")
	}
	// hugeheap.Prepare's allocation would count in HeapInuse for the
	// moment before its collection: address space it never touches, not
	// what the view holds.
	t.Setenv(hugeheap.Env, "0")
	const n = 16_000
	attrs := "note=" + strings.Repeat("x", 2000)
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[mono_ns=1][T0x7f3c9a302c80][TIMING] emit_host_span: [STRACE] v=1 pid=7 tid=%d inv=%d hid=abc depth=0 name=chip.run ts=%d dur=900 %s\n",
			7+i%4, i, 1000*i, attrs)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big.log")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	b.Reset()

	peakDuring := func(args ...string) uint64 {
		base := heapBaseline()
		var peak atomic.Uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > base && ms.HeapInuse-base > peak.Load() {
					peak.Store(ms.HeapInuse - base)
				}
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond):
				}
			}
		}()
		var stdout, stderr bytes.Buffer
		code := run(append(args, path), nil, &stdout, &stderr)
		close(stop)
		<-done
		require.Equal(t, 0, code, stderr.String())
		assert.Contains(t, stdout.String(), fmt.Sprintf("(%d spans in ", n))
		return peak.Load()
	}
	out := filepath.Join(dir, "p.pb.gz")
	merged := peakDuring("pprof", "-o", out)
	assert.Less(t, merged, uint64(40<<20), "the live heap grew by %d MB reading a 32 MB log", merged>>20)
	perInv := peakDuring("pprof", "--per-invocation", "-o", out)
	t.Logf("live heap grew by %d MB merged, %d MB per invocation", merged>>20, perInv>>20)
	assert.Greater(t, perInv, uint64(48<<20), "--per-invocation holds the log (%d MB)", perInv>>20)
}
