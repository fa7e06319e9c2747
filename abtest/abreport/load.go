package abreport

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
)

// loadLine names the background load of --load the campaign ran every
// block beside: the figures are those under that load, on purpose. ""
// without one.
func loadLine(h *journal.Header) string {
	if l := armLoadsLine(h); l != "" {
		return l
	}
	n := h.Config.Load
	if c := h.Config.LoadCmd; c != "" {
		return fmt.Sprintf("Under load (--load-cmd%s): `%s` ran beside every block of every arm, started before the block and killed with its process group after it; the figures are those under that load (each block's load_cpu_ns in the journal is the CPU time it took).", recipeLoad(h, "load_cmd"), c)
	}
	if n == 0 {
		return ""
	}
	where := "on the machine's CPUs"
	if h.Config.CPUs != "" {
		where = "on the blocks' CPUs " + h.Config.CPUs
	}
	return fmt.Sprintf("Under load (--load %d%s): %d busy process(es) ran beside every block of every arm, %s, started before the block and killed after it; the figures are those under that load (each block's load_cpu_ns in the journal is the CPU time the load took).",
		n, recipeLoad(h, "load"), n, where)
}

// recipeLoad is ", from hbgbench.toml" when the campaign's recipe set its
// load (key: load or load_cmd), else "".
func recipeLoad(h *journal.Header, key string) string {
	if h.Recipe != "" && slices.ContainsFunc(h.RecipeSet, func(s string) bool { return strings.HasPrefix(s, key+" = ") }) {
		return ", from hbgbench.toml"
	}
	return ""
}

// armLoadsLine names the load of each arm of --sweep load=N1,N2: the
// arms are one arm under several loads, so Δ is what the load does to it.
// "" when no arm has a load of its own.
func armLoadsLine(h *journal.Header) string {
	var parts []string
	for i, x := range h.ArmList() {
		if x.Load == nil {
			continue
		}
		label := h.ArmNames()[i]
		if x.Name != "" && x.Name != label {
			label += " (" + x.Name + ")"
		}
		parts = append(parts, label+": "+loadWords(*x.Load))
	}
	if len(parts) == 0 {
		return ""
	}
	where := "on the machine's CPUs"
	if h.Config.CPUs != "" {
		where = "on the blocks' CPUs " + h.Config.CPUs
	}
	return fmt.Sprintf("Under load, arm by arm (--sweep load=): %s. The busy processes ran %s beside each block of their arm, started before the block and killed after it, in the same interleaving, so each Δ is what that load does to the same arm (each block's load_pids and load_cpu_ns in the journal show its load ran).",
		strings.Join(parts, ", "), where)
}

// armLoad is what an arm line adds for an arm of --sweep load=: its load
// ("" for an arm without one of its own).
func armLoad(x journal.Arm) string {
	if x.Load == nil {
		return ""
	}
	return "; " + x.Sweep + ": " + loadWords(*x.Load)
}

// loadWords says n busy processes in words: "no background load",
// "2 busy processes beside each block".
func loadWords(n int) string {
	switch n {
	case 0:
		return "no background load"
	case 1:
		return "1 busy process beside each block"
	}
	return fmt.Sprintf("%d busy processes beside each block", n)
}
