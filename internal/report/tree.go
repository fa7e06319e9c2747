package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/phases"
)

// The views of `hbgtrace tree`: strace_timing --tree's median span tree
// and its markdown, csv and json forms.

// treeTitle is the line that introduces a callable's tree.
func treeTitle(c phases.TreeCallable) string {
	if c.Invocations == 1 {
		return fmt.Sprintf("callable hid=%s (%s) \u2014 1 invocation", c.Hid, c.Label)
	}
	return fmt.Sprintf("callable hid=%s (%s) \u2014 median of %d invocation(s)", c.Hid, c.Label, c.Invocations)
}

// WriteTree writes tr in format (FormatText is strace_timing --tree's
// layout, byte for byte). It streams: a tree whose spans share names
// shares their children (phases.TreeNode), so the output can be quadratic
// in the input (2,000 spans named step, each with 2,000 step.sub children,
// print 4,000,000 lines, as the reference does), and it is written as the
// walk goes, through a small buffer, never held.
func WriteTree(w io.Writer, format string, tr *phases.Tree) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var err error
	switch {
	case format == FormatJSON:
		err = writeTreeJSON(bw, tr)
	case format == FormatCSV:
		err = writeTreeCSV(bw, tr)
	case len(tr.Callables) == 0:
		err = writeNoMarkers(bw)
	case format == FormatMarkdown:
		err = writeTreeMarkdown(bw, tr)
	default:
		for _, c := range tr.Callables {
			bw.WriteString(treeTitle(c))
			bw.WriteString("\n")
			treeText(bw, c.Roots, 0)
			bw.WriteString("\n")
		}
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// treeText writes nodes at indent in the reference layout (README.md "tree").
// A write error sticks in the bufio.Writer and is returned by its Flush.
func treeText(b *bufio.Writer, nodes []*phases.TreeNode, indent int) {
	pad := strings.Repeat("  ", indent)
	for _, n := range nodes {
		tag := ""
		if n.Device {
			tag = " [dev]"
		}
		b.WriteString(pad)
		b.WriteString(ljust(n.Leaf, 22))
		b.WriteString(rjust(tag, 6))
		b.WriteString("  ")
		b.WriteString(rjust(fixed1(n.MedianNs/1000), 12))
		b.WriteString(" us\n")
		if c := n.Concurrent; c != nil {
			fmt.Fprintf(b, "%s  orch %s  \u2225  sched %s   (concurrent)\n",
				pad, fixed1(c.Orch.MedianNs/1000), fixed1(c.Sched.MedianNs/1000))
			continue
		}
		treeText(b, n.Children, indent+1)
	}
}

// treeRow is one span of a flattened tree.
type treeRow struct {
	depth      int
	node       *phases.TreeNode
	concurrent bool // orch or sched of an Effective node
}

// walkTreeRows calls fn for nodes in tree order; an Effective node is
// followed by its orch and sched nodes one level deeper. It stops at the
// first error fn returns.
func walkTreeRows(nodes []*phases.TreeNode, depth int, fn func(treeRow) error) error {
	for _, n := range nodes {
		if err := fn(treeRow{depth: depth, node: n}); err != nil {
			return err
		}
		if c := n.Concurrent; c != nil {
			if err := fn(treeRow{depth: depth + 1, node: c.Orch, concurrent: true}); err != nil {
				return err
			}
			if err := fn(treeRow{depth: depth + 1, node: c.Sched, concurrent: true}); err != nil {
				return err
			}
			continue
		}
		if err := walkTreeRows(n.Children, depth+1, fn); err != nil {
			return err
		}
	}
	return nil
}

func writeTreeMarkdown(w *bufio.Writer, tr *phases.Tree) error {
	for i, c := range tr.Callables {
		if i > 0 {
			w.WriteString("\n")
		}
		t := &document.Table{
			Title:  treeTitle(c),
			Header: []string{"Span", "Device", "Median (us)", "n"},
			Align:  []document.Align{document.Left, document.Left, document.Right, document.Right},
		}
		// The header alone, then the rows as the walk meets them.
		if err := writeGridMarkdown(w, t); err != nil {
			return err
		}
		var row strings.Builder
		err := walkTreeRows(c.Roots, 0, func(r treeRow) error {
			dev := ""
			if r.node.Device {
				dev = "dev"
			}
			name := r.node.Name
			if r.concurrent {
				name += " (concurrent)"
			}
			row.Reset()
			gridRow(&row, []string{name, dev, fixed1(r.node.MedianNs / 1000), strconv.Itoa(r.node.N)})
			_, err := w.WriteString(row.String())
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func writeTreeCSV(w io.Writer, tr *phases.Tree) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"hid", "label", "invocations", "depth", "name", "leaf", "device", "median_us", "n"}); err != nil {
		return err
	}
	for _, c := range tr.Callables {
		err := walkTreeRows(c.Roots, 0, func(r treeRow) error {
			return cw.Write([]string{c.Hid, c.Label, strconv.Itoa(c.Invocations), strconv.Itoa(r.depth), r.node.Name, r.node.Leaf,
				strconv.FormatBool(r.node.Device), shortest(r.node.MedianNs / 1000), strconv.Itoa(r.node.N)})
		})
		if err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeTreeJSON streams the document
//
//	{"callables": [{"hid", "label", "invocations", "roots": [node]}]}
//
// node = {"name", "leaf", "device", "median_us", "n", "children": [node]}
// and, on an Effective node, "concurrent": {"orch": node, "sched": node}, in
// the layout of encoding/json with a two-space indent.
func writeTreeJSON(w *bufio.Writer, tr *phases.Tree) error {
	if len(tr.Callables) == 0 {
		w.WriteString("{\n  \"callables\": []\n}\n")
		return nil
	}
	w.WriteString("{\n  \"callables\": [\n")
	for i, c := range tr.Callables {
		w.WriteString("    {\n")
		treeJSONField(w, 3, "hid", jsonString(c.Hid), true)
		treeJSONField(w, 3, "label", jsonString(c.Label), true)
		treeJSONField(w, 3, "invocations", strconv.Itoa(c.Invocations), true)
		w.WriteString("      \"roots\": ")
		treeJSONNodes(w, 3, c.Roots)
		w.WriteString("\n    }")
		if i < len(tr.Callables)-1 {
			w.WriteString(",")
		}
		w.WriteString("\n")
	}
	w.WriteString("  ]\n}\n")
	return nil
}

// treeJSONField writes `"key": value` on its own line at depth (two spaces
// each), with a comma when more follows.
func treeJSONField(w *bufio.Writer, depth int, key, value string, more bool) {
	w.WriteString(strings.Repeat("  ", depth))
	w.WriteString(jsonString(key))
	w.WriteString(": ")
	w.WriteString(value)
	if more {
		w.WriteString(",")
	}
	w.WriteString("\n")
}

// treeJSONNodes writes an array of nodes whose key sits at depth.
func treeJSONNodes(w *bufio.Writer, depth int, nodes []*phases.TreeNode) {
	if len(nodes) == 0 {
		w.WriteString("[]")
		return
	}
	w.WriteString("[\n")
	for i, n := range nodes {
		w.WriteString(strings.Repeat("  ", depth+1))
		treeJSONNode(w, depth+1, n)
		if i < len(nodes)-1 {
			w.WriteString(",")
		}
		w.WriteString("\n")
	}
	w.WriteString(strings.Repeat("  ", depth))
	w.WriteString("]")
}

// treeJSONNode writes one node object opened at depth.
func treeJSONNode(w *bufio.Writer, depth int, n *phases.TreeNode) {
	w.WriteString("{\n")
	in := depth + 1
	treeJSONField(w, in, "name", jsonString(n.Name), true)
	treeJSONField(w, in, "leaf", jsonString(n.Leaf), true)
	treeJSONField(w, in, "device", strconv.FormatBool(n.Device), true)
	treeJSONField(w, in, "median_us", jsonFloat(n.MedianNs/1000), true)
	treeJSONField(w, in, "n", strconv.Itoa(n.N), true)
	w.WriteString(strings.Repeat("  ", in))
	w.WriteString("\"children\": ")
	treeJSONNodes(w, in, n.Children)
	if c := n.Concurrent; c != nil {
		w.WriteString(",\n")
		w.WriteString(strings.Repeat("  ", in))
		w.WriteString("\"concurrent\": {\n")
		w.WriteString(strings.Repeat("  ", in+1))
		w.WriteString("\"orch\": ")
		treeJSONNode(w, in+1, c.Orch)
		w.WriteString(",\n")
		w.WriteString(strings.Repeat("  ", in+1))
		w.WriteString("\"sched\": ")
		treeJSONNode(w, in+1, c.Sched)
		w.WriteString("\n")
		w.WriteString(strings.Repeat("  ", in))
		w.WriteString("}")
	}
	w.WriteString("\n")
	w.WriteString(strings.Repeat("  ", depth))
	w.WriteString("}")
}

// jsonString is s as encoding/json writes it without HTML escaping.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// jsonFloat is f as encoding/json writes it.
func jsonFloat(f float64) string {
	b, err := json.Marshal(f)
	if err != nil {
		return "null" // NaN or Inf: a median never is
	}
	return string(b)
}
