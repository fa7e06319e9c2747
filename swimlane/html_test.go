package swimlane

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// htmlOf writes the page of l (with the artifact passes) and returns it.
func htmlOf(t testing.TB, l *trace.Log, passes []trace.RecordPass, opts HTMLOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, Build(l, passes).WriteHTML(&buf, opts))
	return buf.Bytes()
}

var dataRe = regexp.MustCompile(`(?s)<script id="swimlane-data" type="application/json">(.*?)</script>`)

// pageData decodes the data block of a page.
func pageData(t testing.TB, page []byte) htmlDoc {
	t.Helper()
	m := dataRe.FindSubmatch(page)
	require.NotNil(t, m, "no data block")
	var d htmlDoc
	require.NoError(t, json.Unmarshal(m[1], &d))
	return d
}

// gapsFixture loads swimlane/testdata/gaps.
func gapsFixture(t testing.TB) (*trace.Log, []trace.RecordPass) {
	t.Helper()
	srcs, err := trace.Inputs([]string{"testdata/gaps/run.log"}, nil)
	require.NoError(t, err)
	l, err := trace.ReadLog(srcs)
	require.NoError(t, err)
	passes, err := trace.LoadPhaseRecords([]string{"testdata/gaps/host_phase_records.jsonl"})
	require.NoError(t, err)
	return l, passes
}

// TestHTMLStructure checks the page against the JSON swimlane of the same
// log: one row per lane with the JSON's name, every span present once.
func TestHTMLStructure(t *testing.T) {
	l, passes := gapsFixture(t)
	doc, _ := swimlaneDoc(t, l, passes)
	d := pageData(t, htmlOf(t, l, passes, HTMLOptions{Title: "fixture", Gaps: true}))

	names := doc.threadNames()
	require.Len(t, d.Lanes, len(names))
	for _, ln := range d.Lanes {
		assert.Equal(t, names[[2]int64{ln.Pid, int64(ln.Tid)}], ln.Name)
		assert.Len(t, ln.Util, UtilBins)
	}
	type key struct {
		lane string
		name string
		ts   int64
		dur  int64
	}
	want := make(map[key]int)
	for _, e := range doc.xEvents() {
		want[key{names[[2]int64{e.Pid, e.Tid}], e.Name, int64(e.Ts*1000 + 0.5), int64(e.Dur*1000 + 0.5)}]++
	}
	got := make(map[key]int)
	require.Zero(t, len(d.Spans)%htmlSpanFields)
	for i := 0; i < len(d.Spans); i += htmlSpanFields {
		f := d.Spans[i : i+htmlSpanFields]
		got[key{d.Lanes[f[0]].Name, d.Names[f[4]], f[2] + d.T0, f[3]}]++
		assert.Less(t, int(f[1]), d.Lanes[f[0]].Levels)
	}
	assert.Equal(t, want, got)
	assert.Len(t, d.Binds, 2)
	require.Len(t, d.Gaps, 2, "one injected gap per bind")
	assert.Equal(t, int64(300_000), d.Gaps[0].Dur)
	assert.Contains(t, d.Gaps[0].Label, "graph record worker (tid 43)")
	assert.Equal(t, "graph submit main", d.Lanes[d.Gaps[0].Lane].Name)
}

// TestHTMLLevels checks that spans stack by interval nesting on a lane.
func TestHTMLLevels(t *testing.T) {
	l := &trace.Log{Spans: []trace.Span{
		sp(1, 1, 1, 0, "chip.run", 0, 1000, ""),
		sp(1, 1, 1, 1, "chip.run.bind", 0, 500, ""),
		sp(1, 1, 1, 2, "chip.run.bind.host_orch", 100, 200, ""),
		sp(1, 1, 1, 2, "chip.run.bind.relocate", 600, 10, ""), // depth says 2, nesting says 1
	}}
	d := pageData(t, htmlOf(t, l, nil, HTMLOptions{}))
	level := map[string]int64{}
	for i := 0; i < len(d.Spans); i += htmlSpanFields {
		level[d.Names[d.Spans[i+4]]] = d.Spans[i+1]
	}
	assert.Equal(t, map[string]int64{"chip.run": 0, "chip.run.bind": 1, "chip.run.bind.host_orch": 2, "chip.run.bind.relocate": 1}, level)
	assert.Equal(t, 3, d.Lanes[0].Levels)
}

func TestSpanClass(t *testing.T) {
	tests := map[string]string{
		"chip.run.bind.host_orch.graph_submit":     "submit",
		"chip.run.bind.host_orch.record_node":      "record",
		"chip.run.bind.host_orch.record_sub_task":  "record",
		"chip.run.bind.host_orch.build_definition": "build",
		"chip.run.bind.host_orch":                  "orch",
		"chip.run.bind.graph_upload":               "h2d",
		"simpler_run.bind.h2d_graph":               "h2d",
		"chip.run.bind.args":                       "bind",
		"chip.run":                                 "chip",
		"node.dispatch":                            "node",
		"ext.vllm.step":                            "ext",
		"whatever":                                 "other",
	}
	for name, want := range tests {
		assert.Equal(t, want, spanClasses[spanClass(name)].key, name)
	}
}

// networkRe matches any way a page could load something: a URL in src,
// href or action, CSS url() or @import, JS import, fetch or XHR.
var networkRe = regexp.MustCompile(`(?i)(\b(src|href|action|srcset)\s*=\s*["']?\s*(https?:)?//)|url\(\s*["']?\s*(https?:)?//|@import|\bimport\s*\(|\bimport\s+[\w{*]|\bfetch\s*\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon`)

func TestHTMLLoadsNothing(t *testing.T) {
	l, passes := gapsFixture(t)
	page := htmlOf(t, l, passes, HTMLOptions{Gaps: true})
	assert.Empty(t, networkRe.FindAll(page, -1))
	// The check itself finds what it is for.
	for _, bad := range []string{`<script src="https://x/y.js">`, `<link href="//cdn/x.css">`, `@import "a.css";`,
		`fetch("/data")`, `import("./m.js")`, `background: url(http://x/a.png)`} {
		assert.NotEmpty(t, networkRe.FindAllString(bad, -1), bad)
	}
	// A name or attribute with markup cannot break out of the data block.
	evil := &trace.Log{Spans: []trace.Span{sp(1, 1, 1, 0, `</script><script src="https://evil/x.js">`, 0, 10, `k=</script>`)}}
	page = htmlOf(t, evil, nil, HTMLOptions{Title: `<img src="http://x/y.png">`})
	assert.Empty(t, networkRe.FindAll(page, -1))
	assert.Equal(t, 2, bytes.Count(page, []byte("</script>")), "only the two closing tags of the page")
}

// synthLog is a log of n host spans on lanes threads: per thread,
// pairs of a parent with one nested child, back to back.
func synthLog(n, lanes int) *trace.Log {
	l := &trace.Log{Spans: make([]trace.Span, 0, n)}
	per := n / lanes
	for k := 0; k < lanes; k++ {
		ts := int64(1_000_000)
		for i := 0; i < per; i += 2 {
			l.Spans = append(l.Spans,
				sp(1, int64(100+k), uint64(i/20+1), 0, "chip.run", ts, 900, fmt.Sprintf("run_id=%d", i)),
				sp(1, int64(100+k), uint64(i/20+1), 1, "chip.run.bind.host_orch", ts+100, 500, ""))
			ts += 1000
		}
	}
	return l
}

// maxBytesPerSpan bounds the page's size per span beyond its fixed part
// and the text of its distinct names and attributes (TestHTMLSizePerSpan).
const maxBytesPerSpan = 48

func TestHTMLSizePerSpan(t *testing.T) {
	empty := len(htmlOf(t, &trace.Log{}, nil, HTMLOptions{}))
	assert.Less(t, empty, 40_000, "the fixed part: viewer code and style")
	for _, n := range []int{1_000, 100_000} {
		l := synthLog(n, 10)
		page := htmlOf(t, l, nil, HTMLOptions{})
		d := pageData(t, page)
		text := 0
		for _, s := range d.Names {
			text += len(s) + 3
		}
		for _, s := range d.Attrs {
			text += len(s) + 3
		}
		utilBytes := len(d.Lanes) * UtilBins * 4
		per := float64(len(page)-empty-text-utilBytes) / float64(n)
		t.Logf("%d spans: %d bytes, %.1f bytes/span beyond %d fixed, %d of strings, %d of utilisation", n, len(page), per, empty, text, utilBytes)
		assert.LessOrEqual(t, per, float64(maxBytesPerSpan))
	}
}
