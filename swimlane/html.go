package swimlane

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// The viewer's code and style, inlined into every page: the file needs
// nothing from the network.
var (
	//go:embed html/viewer.js
	viewerJS string
	//go:embed html/viewer.css
	viewerCSS string
)

// UtilBins is the number of time bins of each lane's utilisation strip.
const UtilBins = 400

// HTMLOptions are the knobs of WriteHTML.
type HTMLOptions struct {
	Title string // shown in the page title and header, e.g. the log names
	// Round labels the bind selector's entries with the row of `hbgtrace
	// rounds`; nil for none.
	Round func(pid int64, inv uint64) (int, bool)
	// Gaps, when true, draws the gaps Gaps finds (with GapOptions{Round})
	// on the graph submit main lanes.
	Gaps   bool
	MinGap int64
}

// Span classes of the viewer: the colour families, in legend order. A
// span's class is the first that matches its name.
var spanClasses = []struct{ key, label string }{
	{"submit", "graph_submit"},
	{"record", "record_*"},
	{"build", "build_definition"},
	{"orch", "host_orch"},
	{"h2d", "H2D copies"},
	{"bind", "chip.run.bind.*"},
	{"chip", "chip.*"},
	{"node", "node / network"},
	{"ext", "ext.*"},
	{"other", "other"},
}

func spanClass(name string) int {
	leaf := name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		leaf = name[i+1:]
	}
	key := "other"
	switch {
	case leaf == "graph_submit":
		key = "submit"
	case strings.HasPrefix(leaf, "record_"):
		key = "record"
	case leaf == "build_definition":
		key = "build"
	case isH2D(name):
		key = "h2d"
	case strings.Contains(name, "bind.host_orch"):
		key = "orch"
	case strings.HasPrefix(name, "chip.run.bind.") || strings.HasPrefix(name, "simpler_run.bind."):
		key = "bind"
	default:
		switch trace.Family(name) {
		case trace.FamilyChip, trace.FamilyCore:
			key = "chip"
		case trace.FamilyNode:
			key = "node"
		case trace.FamilyExternal:
			key = "ext"
		}
	}
	for i, c := range spanClasses {
		if c.key == key {
			return i
		}
	}
	return len(spanClasses) - 1
}

// htmlSpanFields is the number of integers per span in the page's data:
// lane, level, start, duration (ns from the log's start), name, attrs
// (string table indices), class, inv.
const htmlSpanFields = 8

// htmlDoc is the data the viewer reads, as JSON.
type htmlDoc struct {
	Title   string     `json:"title"`
	T0      int64      `json:"t0"` // ns, host monotonic; every ts is relative to it
	T1      int64      `json:"t1"` // the end of the last span, relative
	Lanes   []htmlLane `json:"lanes"`
	Classes []string   `json:"classes"` // legend labels, by class index
	Keys    []string   `json:"keys"`    // CSS class keys, by class index
	Names   []string   `json:"names"`
	Attrs   []string   `json:"attrs"`
	Spans   []int64    `json:"spans"` // htmlSpanFields per span, by lane then start
	Binds   []htmlBind `json:"binds"`
	Gaps    []htmlGap  `json:"gaps"`
	Bins    int        `json:"bins"`
}

type htmlLane struct {
	Name    string `json:"name"`
	Process string `json:"process"`
	Pid     int64  `json:"pid"`
	Tid     uint64 `json:"tid"`
	Levels  int    `json:"levels"`
	Util    []int  `json:"util"` // per bin, busy percent of the lane's outer spans
}

type htmlBind struct {
	Label string `json:"label"`
	Ts    int64  `json:"ts"`
	Dur   int64  `json:"dur"`
}

type htmlGap struct {
	Lane  int    `json:"lane"`
	Ts    int64  `json:"ts"`
	Dur   int64  `json:"dur"`
	Label string `json:"label"`
}

// WriteHTML writes the swimlane as one self-contained HTML page: inline
// CSS, script and data, nothing fetched. The page draws one row per lane
// (named as in the JSON), nested spans stacked by their interval nesting,
// a time axis, a per-lane utilisation strip of the whole log, the gaps
// when asked, and a bind selector; it renders only what is in view.
func (sw *Swimlane) WriteHTML(w io.Writer, opts HTMLOptions) error {
	d := sw.htmlDoc(opts)
	data, err := json.Marshal(d) // escapes <, > and &: safe inside <script>
	if err != nil {
		return fmt.Errorf("writing html swimlane: %w", err)
	}
	bw := bufio.NewWriter(w)
	title := html.EscapeString(d.Title)
	fmt.Fprintf(bw, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>swimlane: %s</title>
<style>
%s</style>
</head><body>
<header><h1>host swimlane <span id="title">%s</span></h1>
<div id="controls">
<label>bind <select id="bind"><option value="-1">whole log</option></select></label>
<button id="zoomin" title="zoom in (w, +)">+</button>
<button id="zoomout" title="zoom out (s, -)">&minus;</button>
<button id="reset" title="whole log (0)">whole log</button>
<span id="range"></span>
<span class="hint">wheel: zoom &middot; drag: pan &middot; w/s a/d &larr;/&rarr;: keys</span>
</div>
<div id="legend"></div>
</header>
<div id="utilwrap"><svg id="util" xmlns="http://www.w3.org/2000/svg"></svg></div>
<svg id="axis" xmlns="http://www.w3.org/2000/svg"></svg>
<div id="main"><svg id="lanes" xmlns="http://www.w3.org/2000/svg"></svg></div>
<div id="tooltip" hidden></div>
<script id="swimlane-data" type="application/json">`, title, viewerCSS, title)
	bw.Write(data)
	fmt.Fprintf(bw, "</script>\n<script>\n%s</script>\n</body></html>\n", viewerJS)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing html swimlane: %w", err)
	}
	return nil
}

func (sw *Swimlane) htmlDoc(opts HTMLOptions) *htmlDoc {
	d := &htmlDoc{Title: opts.Title, Bins: UtilBins, Spans: []int64{}, Binds: []htmlBind{}, Gaps: []htmlGap{}, Names: []string{}, Attrs: []string{}}
	for _, c := range spanClasses {
		d.Classes = append(d.Classes, c.label)
		d.Keys = append(d.Keys, c.key)
	}
	procName := make(map[int64]string, len(sw.procs))
	for _, p := range sw.procs {
		procName[p.pid] = p.name
	}
	laneIdx := make(map[laneKey]int, len(sw.lanes))
	for i, ln := range sw.lanes {
		laneIdx[laneKey{ln.pid, ln.id}] = i
		d.Lanes = append(d.Lanes, htmlLane{Name: ln.name, Process: procName[ln.pid], Pid: ln.pid, Tid: ln.id})
	}
	for i := range sw.hosts {
		s := sw.hosts[i].span
		if i == 0 || s.Ts < d.T0 {
			d.T0 = s.Ts
		}
		if s.End() > d.T1 || i == 0 {
			d.T1 = s.End()
		}
	}
	d.T1 -= d.T0
	byLane := make([][]*trace.Span, len(sw.lanes))
	for i := range sw.hosts {
		h := &sw.hosts[i]
		li := laneIdx[laneKey{h.span.Pid, h.lane}]
		byLane[li] = append(byLane[li], h.span)
	}
	names := make(map[string]int64)
	attrs := make(map[string]int64)
	intern := func(m map[string]int64, tab *[]string, s string) int64 {
		if i, ok := m[s]; ok {
			return i
		}
		i := int64(len(*tab))
		m[s] = i
		*tab = append(*tab, s)
		return i
	}
	for li, spans := range byLane {
		parent, order := nestParents(spans)
		level := make([]int, len(spans))
		levels := 0
		for _, i := range order {
			if parent[i] >= 0 {
				level[i] = level[parent[i]] + 1
			}
			levels = max(levels, level[i]+1)
		}
		d.Lanes[li].Levels = levels
		d.Lanes[li].Util = utilisation(spans, parent, d.T0, d.T1)
		sorted := append([]int(nil), order...)
		sort.SliceStable(sorted, func(a, b int) bool { return spans[sorted[a]].Ts < spans[sorted[b]].Ts })
		for _, i := range sorted {
			s := spans[i]
			d.Spans = append(d.Spans, int64(li), int64(level[i]), s.Ts-d.T0, s.Dur,
				intern(names, &d.Names, s.Name), intern(attrs, &d.Attrs, s.Attrs), int64(spanClass(s.Name)), int64(s.Inv))
		}
	}
	for i := range sw.hosts {
		s := sw.hosts[i].span
		if s.Name != "chip.run.bind" && s.Name != "simpler_run.bind" {
			continue
		}
		label := fmt.Sprintf("pid=%d inv=%d", s.Pid, s.Inv)
		if opts.Round != nil {
			if r, ok := opts.Round(s.Pid, s.Inv); ok {
				label = fmt.Sprintf("round %d: %s", r, label)
			}
		}
		d.Binds = append(d.Binds, htmlBind{Label: label + fmt.Sprintf(" (%s us)", us(s.Dur)), Ts: s.Ts - d.T0, Dur: s.Dur})
	}
	sort.SliceStable(d.Binds, func(i, j int) bool { return d.Binds[i].Ts < d.Binds[j].Ts })
	if opts.Gaps {
		for _, bg := range sw.Gaps(GapOptions{MinGap: opts.MinGap, Round: opts.Round}) {
			li, ok := laneIdx[laneKey{bg.Pid, uint64(bg.Tid)}]
			if !ok {
				continue
			}
			for _, g := range bg.Gaps {
				label := fmt.Sprintf("gap %s us after graph_submit #%d (%s); created: %s",
					us(g.Dur()), g.After, bg.Label(), LaneNames(g.Created))
				d.Gaps = append(d.Gaps, htmlGap{Lane: li, Ts: g.Start - d.T0, Dur: g.Dur(), Label: label})
			}
		}
	}
	return d
}

// utilisation returns, per bin of [t0, t0+span], the percentage of the bin
// covered by the lane's outermost spans.
func utilisation(spans []*trace.Span, parent []int, t0, span int64) []int {
	busy := make([]float64, UtilBins)
	if span <= 0 {
		return make([]int, UtilBins)
	}
	width := float64(span) / UtilBins
	var iv [][2]int64
	for i, s := range spans {
		if parent[i] < 0 {
			iv = append(iv, [2]int64{s.Ts - t0, s.End() - t0})
		}
	}
	sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
	// Merge overlapping outer spans so time is counted once.
	var merged [][2]int64
	for _, v := range iv {
		if n := len(merged); n > 0 && v[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], v[1])
			continue
		}
		merged = append(merged, v)
	}
	for _, v := range merged {
		a, b := float64(v[0]), float64(v[1])
		for bin := int(a / width); bin < UtilBins && float64(bin)*width < b; bin++ {
			lo, hi := max(a, float64(bin)*width), min(b, float64(bin+1)*width)
			if hi > lo {
				busy[bin] += hi - lo
			}
		}
	}
	out := make([]int, UtilBins)
	for i, v := range busy {
		out[i] = min(100, int(v/width*100+0.5))
	}
	return out
}
