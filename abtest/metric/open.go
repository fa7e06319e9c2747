package metric

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/phases"
)

// Open evidence (docs/ab-reference.md "What a block yields"): a log
// yields a metric for every host-orch kind it writes and for every
// numeric attribute of its bind segments and host-orch lines, not only
// for the names KnownMetrics lists. KnownMetrics gives the known names
// their labels, units and order; Describe gives any other name its
// family and a unit from its name.

// FamilyAttrs holds the open attributes: a bind segment's numeric
// attributes beyond the counters and work ("attr.host_orch.hblkhd"), and
// a host-orch line's beyond total_ns= and count= ("orch.submit_task.dropped").
const FamilyAttrs = "attributes"

// attrPrefix starts the name of an open attribute of a bind segment:
// "attr.host_orch.hblkhd".
const attrPrefix = "attr."

// AttrMetric returns the name of the open attribute name of segment seg.
func AttrMetric(seg, name string) string { return attrPrefix + seg + "." + name }

// KindFromName is the kind of an open attribute, from its name
// (docs/formats.md "Open attributes"): a name ending in _ns is time (CPU
// time when it says cpu), a name containing bytes is bytes, any other a
// count.
func KindFromName(name string) MetricKind {
	switch phases.EvidenceUnit(name) {
	case phases.UnitCPUNs:
		return KindCPU
	case phases.UnitNs:
		return KindTime
	case phases.UnitBytes:
		return KindBytes
	}
	return KindCount
}

// Describe returns the metric called name: a known one (as LookupMetric
// finds it, without ranks), or an open one of the forms a log yields
// beyond them ("orch.<kind>", "orch.<kind>.per_op", "orch.<kind>.<attr>",
// "attr.<segment>.<attr>"), or a derived one registered by a Derivation.
// It reports false for a name of no such form.
func Describe(name string) (MetricInfo, bool) {
	if !openName.MatchString(name) {
		return MetricInfo{}, false
	}
	for _, m := range KnownMetrics() {
		if m.Name == name {
			return m, true
		}
	}
	m := MetricInfo{Name: name, Label: name}
	switch {
	case strings.HasPrefix(name, orchPrefix):
		rest := name[len(orchPrefix):]
		kind, attr, hasAttr := strings.Cut(rest, ".")
		switch {
		case kind == "":
			return MetricInfo{}, false
		case !hasAttr:
			m.Family, m.Kind = FamilyOrch, KindTime
		case attr == perOpSuffix[1:]:
			m.Family, m.Kind, m.Label = FamilyOrch, KindTime, orchPrefix+kind+" per op"
		case attr != "":
			m.Family, m.Kind = FamilyAttrs, KindFromName(attr)
		default:
			return MetricInfo{}, false
		}
	case strings.HasPrefix(name, attrPrefix):
		seg, attr, ok := strings.Cut(name[len(attrPrefix):], ".")
		if !ok || seg == "" || attr == "" {
			return MetricInfo{}, false
		}
		m.Family, m.Kind = FamilyAttrs, KindFromName(attr)
	default:
		return MetricInfo{}, false
	}
	m.Key = PooledKey(name)
	return m, true
}

// openName is what an open metric's name is made of: words of letters,
// digits and underscores joined by dots.
var openName = regexp.MustCompile(`^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$`)

// MetricsOf returns the metrics named in names, in report order: the
// known ones in KnownMetrics' order, then the open ones by family
// (Families' order) and name. A name Describe does not know is left out
// and returned in unknown, so that a caller can say so.
//
// extra describes names Describe does not know (derived metrics); they
// come last, in extra's order.
func MetricsOf(names map[string]bool, extra ...MetricInfo) (out []MetricInfo, unknown []string) {
	for _, m := range KnownMetrics() {
		if names[m.Name] {
			out = append(out, m)
		}
	}
	known := map[string]bool{}
	for _, m := range out {
		known[m.Name] = true
	}
	var open, derived []MetricInfo
	for _, m := range extra {
		if names[m.Name] && !known[m.Name] {
			known[m.Name] = true
			derived = append(derived, m)
		}
	}
	for n := range names {
		if known[n] {
			continue
		}
		if m, ok := Describe(n); ok {
			open = append(open, m)
		} else {
			unknown = append(unknown, n)
		}
	}
	famIdx := map[string]int{}
	for i, f := range Families() {
		famIdx[f] = i
	}
	sort.Slice(open, func(i, j int) bool {
		if a, b := famIdx[open[i].Family], famIdx[open[j].Family]; a != b {
			return a < b
		}
		return open[i].Name < open[j].Name
	})
	sort.Strings(unknown)
	return append(append(out, open...), derived...), unknown
}

// PassMetricNames returns the names of the metrics some pass of ps
// records.
func PassMetricNames(ps []Pass) map[string]bool {
	out := map[string]bool{}
	for _, p := range ps {
		for k := range p.Values {
			out[k] = true
		}
	}
	return out
}

// MetricListOf returns the metrics some pass of ps records, as
// MetricList prints them: what `--metric list` prints for given logs.
func MetricListOf(ps []Pass) []string {
	ms, _ := MetricsOf(PassMetricNames(ps))
	return formatMetricList(ms)
}

func formatMetricList(ms []MetricInfo) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%-36s %-7s %s", m.Name, m.Kind.Unit(), m.Family))
	}
	return out
}

// openMetricForms are the lines MetricList adds for the open metrics:
// the forms their names take.
var openMetricForms = []string{
	fmt.Sprintf("%-36s %-7s %s", "orch.<kind>, orch.<kind>.per_op", "µs", FamilyOrch+" (any host-orch kind)"),
	fmt.Sprintf("%-36s %-7s %s", "orch.<kind>.<attribute>", "by name", FamilyAttrs+" (detail_sum=, dropped=, …)"),
	fmt.Sprintf("%-36s %-7s %s", "attr.<segment>.<attribute>", "by name", FamilyAttrs+" (any numeric bind attribute)"),
}

// PassMetrics returns the metrics the pass records, known or open, in
// report order: the rows of a report's passes table.
func PassMetrics(p Pass) []MetricInfo {
	names := make(map[string]bool, len(p.Values))
	for k := range p.Values {
		names[k] = true
	}
	ms, _ := MetricsOf(names)
	return ms
}

// MetricListOfLogs reads each log (a block's files, as ReadBlockLog
// does) and returns the metrics some pass of any records, as
// MetricListOf prints them: `hbgbench compare --metric list` with logs.
func MetricListOfLogs(logs [][]string) ([]string, error) {
	var all []Pass
	for _, l := range logs {
		bp, err := ReadBlockLog(l)
		if err != nil {
			return nil, err
		}
		all = append(all, bp.Passes...)
	}
	return MetricListOf(all), nil
}
