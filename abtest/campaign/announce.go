package campaign

import (
	"fmt"
	"io"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
)

// Announce says on w what the campaign of header h, journaled at path,
// runs, before it runs: its arms, rounds and journal, and the command
// each block of a git or command arm runs (it may come from a recipe).
// An arm that runs with a switch known to turn a correctness check off
// is named, with its switches, on a WARNING line of its own, before a
// block runs. Its lines carry no program name, as Options.Warn's.
func Announce(w io.Writer, h journal.Header, path string) {
	labels := make([]string, len(h.ArmList()))
	for i, a := range h.ArmList() {
		labels[i] = a.Label()
		if len(h.AllArms) > 0 {
			labels[i] = a.Name
		}
	}
	fmt.Fprintf(w, "%s: %d rounds of %d passes per arm, journal %s\n",
		strings.Join(labels, " vs "), h.Config.Rounds, h.Config.Block, path)
	for i, a := range h.ArmList() {
		switch a.Kind {
		case journal.KindGit:
			fmt.Fprintf(w, "each %s block runs in its worktree: %s\n", h.ArmNames()[i], a.Run)
		case journal.KindCommand:
			fmt.Fprintf(w, "each %s block runs: %s\n", h.ArmNames()[i], a.Spec)
		}
	}
	for _, s := range analysis.ArmSwitchesOf(&h) {
		fmt.Fprintf(w, "WARNING: %s\n", s.Text())
	}
}
