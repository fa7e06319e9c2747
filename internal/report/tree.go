package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

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
// layout, byte for byte).
func WriteTree(w io.Writer, format string, tr *phases.Tree) error {
	switch format {
	case FormatJSON:
		return WriteJSON(w, treeDoc(tr))
	case FormatCSV:
		return writeGridCSV(w, treeCSV(tr))
	}
	if len(tr.Callables) == 0 {
		return writeNoMarkers(w)
	}
	if format == FormatMarkdown {
		return writeTreeMarkdown(w, tr)
	}
	var b strings.Builder
	for _, c := range tr.Callables {
		b.WriteString(treeTitle(c))
		b.WriteString("\n")
		treeText(&b, c.Roots, 0)
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// treeText writes nodes at indent in the reference layout (REFERENCE §3.5).
func treeText(b *strings.Builder, nodes []*phases.TreeNode, indent int) {
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

// treeRows flattens nodes in tree order; an Effective node is followed by
// its orch and sched nodes one level deeper.
func treeRows(nodes []*phases.TreeNode, depth int, out []treeRow) []treeRow {
	for _, n := range nodes {
		out = append(out, treeRow{depth: depth, node: n})
		if c := n.Concurrent; c != nil {
			out = append(out, treeRow{depth: depth + 1, node: c.Orch, concurrent: true},
				treeRow{depth: depth + 1, node: c.Sched, concurrent: true})
			continue
		}
		out = treeRows(n.Children, depth+1, out)
	}
	return out
}

func writeTreeMarkdown(w io.Writer, tr *phases.Tree) error {
	for i, c := range tr.Callables {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		t := &Table{
			Title:  treeTitle(c),
			Header: []string{"Span", "Device", "Median (us)", "n"},
			Align:  []Align{Left, Left, Right, Right},
		}
		for _, r := range treeRows(c.Roots, 0, nil) {
			dev := ""
			if r.node.Device {
				dev = "dev"
			}
			name := r.node.Name
			if r.concurrent {
				name += " (concurrent)"
			}
			t.addRow(name, dev, fixed1(r.node.MedianNs/1000), strconv.Itoa(r.node.N))
		}
		if err := writeGridMarkdown(w, t); err != nil {
			return err
		}
	}
	return nil
}

func treeCSV(tr *phases.Tree) *Table {
	t := &Table{Header: []string{"hid", "label", "invocations", "depth", "name", "leaf", "device", "median_us", "n"}}
	for _, c := range tr.Callables {
		for _, r := range treeRows(c.Roots, 0, nil) {
			t.addRow(c.Hid, c.Label, strconv.Itoa(c.Invocations), strconv.Itoa(r.depth), r.node.Name, r.node.Leaf,
				strconv.FormatBool(r.node.Device), shortest(r.node.MedianNs/1000), strconv.Itoa(r.node.N))
		}
	}
	return t
}

type treeJSON struct {
	Callables []treeCallableJSON `json:"callables"`
}

type treeCallableJSON struct {
	Hid         string          `json:"hid"`
	Label       string          `json:"label"`
	Invocations int             `json:"invocations"`
	Roots       []*treeNodeJSON `json:"roots"`
}

type treeNodeJSON struct {
	Name       string              `json:"name"`
	Leaf       string              `json:"leaf"`
	Device     bool                `json:"device"`
	MedianUs   float64             `json:"median_us"`
	N          int                 `json:"n"`
	Children   []*treeNodeJSON     `json:"children"`
	Concurrent *treeConcurrentJSON `json:"concurrent,omitempty"`
}

type treeConcurrentJSON struct {
	Orch  *treeNodeJSON `json:"orch"`
	Sched *treeNodeJSON `json:"sched"`
}

func treeNodesDoc(nodes []*phases.TreeNode) []*treeNodeJSON {
	out := []*treeNodeJSON{}
	for _, n := range nodes {
		out = append(out, treeNodeDoc(n))
	}
	return out
}

func treeNodeDoc(n *phases.TreeNode) *treeNodeJSON {
	j := &treeNodeJSON{Name: n.Name, Leaf: n.Leaf, Device: n.Device, MedianUs: n.MedianNs / 1000, N: n.N, Children: treeNodesDoc(n.Children)}
	if c := n.Concurrent; c != nil {
		j.Concurrent = &treeConcurrentJSON{Orch: treeNodeDoc(c.Orch), Sched: treeNodeDoc(c.Sched)}
	}
	return j
}

func treeDoc(tr *phases.Tree) treeJSON {
	doc := treeJSON{Callables: []treeCallableJSON{}}
	for _, c := range tr.Callables {
		doc.Callables = append(doc.Callables, treeCallableJSON{Hid: c.Hid, Label: c.Label, Invocations: c.Invocations, Roots: treeNodesDoc(c.Roots)})
	}
	return doc
}
