package campaign

import (
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/runtimeharness"
)

// startLoad starts the background load of --load (cfg.Load busy
// processes, on the block's CPUs under --cpus) or --load-cmd (its command) beside block b and notes
// their pids in it; the returned stop kills them and notes in b the CPU
// time they consumed. With no load, stop does nothing. Every block of
// every arm runs under the same load, so the load is a condition of the
// campaign, not an accident of the machine.
func startLoad(cfg journal.Config, b *journal.BlockRecord) (stop func(), err error) {
	if cfg.Load <= 0 && cfg.LoadCmd == "" {
		return func() {}, nil
	}
	l, err := runtimeharness.StartLoad(cfg.Load, cfg.LoadCmd, cfg.CPUs)
	if err != nil {
		return nil, err
	}
	b.LoadPids = l.Pids()
	return func() { b.LoadCPUNS = int64(l.Stop()) }, nil
}
