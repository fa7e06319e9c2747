package campaign

import (
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/runtimeharness"
)

// startLoad starts the background load of arm beside block b: --load's
// busy processes (on the block's CPUs under --cpus), --load-cmd's command,
// or the arm's own busy processes under --sweep load= (cfg.LoadOf); it
// notes their pids in b. The returned stop kills them and notes in b the
// CPU time they consumed. With no load, stop does nothing. Every block of
// an arm runs under the same load, so the load is a condition of the
// campaign (or of the arm), not an accident of the machine.
func startLoad(cfg journal.Config, arm journal.Arm, b *journal.BlockRecord) (stop func(), err error) {
	n, command := cfg.LoadOf(arm)
	if n <= 0 && command == "" {
		return func() {}, nil
	}
	l, err := runtimeharness.StartLoad(n, command, cfg.CPUs)
	if err != nil {
		return nil, err
	}
	b.LoadPids = l.Pids()
	return func() { b.LoadCPUNS = int64(l.Stop()) }, nil
}

// loadStamp is how the stamp of a block of arm names the load beside it
// (runtimeharness.LoadStamp): "" in a campaign without any load, so that
// its stamps, and the rulers of journals written before loads were
// stamped, stay as they were.
func loadStamp(cfg journal.Config, arm journal.Arm) string {
	n, command := cfg.LoadOf(arm)
	return runtimeharness.LoadStamp(n, command, arm.Load != nil)
}

// sameRuler reports whether a block's ruler is the campaign's. A journal
// whose ruler names no load was written before blocks stamped theirs
// (docs/ab-reference.md "Same ruler"): a block resuming it is compared
// with its load word set aside, and its own stamp still names it.
func sameRuler(campaign, block, load string) bool {
	if campaign == block {
		return true
	}
	if load == "" || strings.Contains(campaign, " load=") || strings.Contains(campaign, " load-cmd=") {
		return false
	}
	return strings.Replace(block, " "+load, "", 1) == campaign
}

// armLabel is an arm's label with its load when --sweep load= gave it
// one: the two arms of such a sweep differ in nothing else.
func armLabel(a journal.Arm) string {
	if a.Load != nil {
		return a.Label() + " under " + a.Sweep
	}
	return a.Label()
}
