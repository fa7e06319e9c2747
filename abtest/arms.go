package abtest

import (
	"fmt"
	"strings"

	"github.com/hbgkit/hbgkit/runtimeharness"
)

// The two arms, as indexes: Base is A, Head is B. Δ is head against base.
const (
	Base = 0
	Head = 1
)

var armNames = [2]string{"base", "head"}

// ArmName returns "base" or "head".
func ArmName(i int) string { return armNames[i] }

// The kinds of arm.
const (
	KindEmbedded = "embedded" // the embedded runtime model in a child process
	KindCommand  = "command"  // a shell command template ({rounds}, {out})
)

// An Arm is one side of a campaign, as the journal records it.
type Arm struct {
	Kind string `json:"kind"`
	// Spec is the embedded arm spec ("embedded:mirror=retained") or the
	// command template.
	Spec string `json:"spec"`
}

// DefaultBase and DefaultHead are the arms of `hbgbench ab` with none
// given: the SM mirror allocated per bind (before simpler's retained mirror)
// against the retained one.
var (
	DefaultBase = Arm{Kind: KindEmbedded, Spec: "embedded:mirror=per_bind"}
	DefaultHead = Arm{Kind: KindEmbedded, Spec: "embedded:mirror=retained"}
)

// ParseEmbedded returns the arm of an embedded spec, checked and written in
// its canonical form ("embedded:" alone is the default model).
func ParseEmbedded(spec string) (Arm, error) {
	if !strings.HasPrefix(spec, "embedded:") {
		return Arm{}, fmt.Errorf("arm %q: only embedded:KEY=VALUE,... specs are built yet "+
			"(git refs come with the git-ref arms); use --base-cmd/--head-cmd for a command", spec)
	}
	cfg, err := runtimeharness.ParseArmSpec(spec)
	if err != nil {
		return Arm{}, fmt.Errorf("arm %q: %w", spec, err)
	}
	if err := cfg.Validate(); err != nil {
		return Arm{}, fmt.Errorf("arm %q: %w", spec, err)
	}
	return Arm{Kind: KindEmbedded, Spec: cfg.Spec()}, nil
}

// CommandArm returns the arm of a command template.
func CommandArm(template string) (Arm, error) {
	if strings.TrimSpace(template) == "" {
		return Arm{}, fmt.Errorf("empty command template")
	}
	return Arm{Kind: KindCommand, Spec: template}, nil
}

// Runner returns the runner of the arm. exe is the binary an embedded arm
// re-executes (hbgbench itself; "" means os.Executable), dir the working
// directory of a command arm.
func (a Arm) Runner(exe, dir string) (runtimeharness.Runner, error) {
	switch a.Kind {
	case KindEmbedded:
		cfg, err := runtimeharness.ParseArmSpec(a.Spec)
		if err != nil {
			return nil, err
		}
		return &runtimeharness.EmbeddedRunner{Config: cfg, Exe: exe}, nil
	case KindCommand:
		return &runtimeharness.CommandRunner{Template: a.Spec, Worktree: dir}, nil
	}
	return nil, fmt.Errorf("arm kind %q: want embedded or command", a.Kind)
}

// Same reports whether two arms are one and the same: an A/A campaign.
func (a Arm) Same(b Arm) bool { return a == b }

// namingStrings returns what in a block's stamp names the arm rather than
// the ruler (STATS.md "Same ruler"): the embedded spec, or the command as
// the block ran it.
func (a Arm) namingStrings(command string) []string {
	if a.Kind == KindCommand {
		return []string{command, a.Spec}
	}
	return []string{a.Spec}
}
