package campaign

import (
	"fmt"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/runtimeharness"
)

// armRunner returns the runner of arm a. exe is the binary an embedded arm
// re-executes (hbgbench itself; "" means os.Executable), dir the working
// directory of a command arm. records has an embedded arm write
// host_phase_records.jsonl into each block's {out} (--records).
func armRunner(a journal.Arm, exe, dir string, records bool) (runtimeharness.Runner, error) {
	switch a.Kind {
	case journal.KindEmbedded:
		cfg, err := runtimeharness.ParseArmSpec(a.Spec)
		if err != nil {
			return nil, err
		}
		return &runtimeharness.EmbeddedRunner{Config: cfg, Exe: exe, Records: records}, nil
	case journal.KindCommand:
		return &runtimeharness.CommandRunner{Template: a.Spec, Worktree: dir, Env: a.Env}, nil
	case journal.KindGit:
		return &runtimeharness.CommandRunner{Template: a.Run, Worktree: dir, Commit: a.Sha, Env: a.Env}, nil
	}
	return nil, fmt.Errorf("arm kind %q: want embedded or command", a.Kind)
}
