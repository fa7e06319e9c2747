package abreport

import (
	"fmt"

	"github.com/hbgkit/hbgkit/abtest/journal"
)

// loadLine names the background load of --load the campaign ran every
// block beside: the figures are those under that load, on purpose. ""
// without one.
func loadLine(h *journal.Header) string {
	n := h.Config.Load
	if c := h.Config.LoadCmd; c != "" {
		return fmt.Sprintf("Under load (--load-cmd): `%s` ran beside every block of every arm, started before the block and killed with its process group after it; the figures are those under that load (each block's load_cpu_ns in the journal is the CPU time it took).", c)
	}
	if n == 0 {
		return ""
	}
	where := "on the machine's CPUs"
	if h.Config.CPUs != "" {
		where = "on the blocks' CPUs " + h.Config.CPUs
	}
	return fmt.Sprintf("Under load (--load %d): %d busy process(es) ran beside every block of every arm, %s, started before the block and killed after it; the figures are those under that load (each block's load_cpu_ns in the journal is the CPU time the load took).",
		n, n, where)
}
