package journal

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

var ArmNames = [2]string{"base", "head"}

// ArmName returns "base" or "head".
func ArmName(i int) string { return ArmNames[i] }

// An ArmKind says what an arm runs.
type ArmKind string

// The kinds of arm.
const (
	KindEmbedded ArmKind = "embedded" // the embedded runtime model in a child process
	KindCommand  ArmKind = "command"  // a shell command template ({rounds}, {out})
	KindGit      ArmKind = "git"      // a commit of a repository, built and run in a worktree
)

// An Arm is one side of a campaign, as the journal records it.
type Arm struct {
	Kind ArmKind `json:"kind"`
	// Spec is the embedded arm spec ("embedded:mirror=retained"), the
	// command template, or the git ref as given ("main").
	Spec string `json:"spec"`
	// Git arms: the commit the ref resolved to, and the build and run
	// templates ({worktree}, {rounds}, {out}).
	Sha   string `json:"sha,omitempty"`
	Build string `json:"build,omitempty"`
	Run   string `json:"run,omitempty"`
	// Env are KEY=VALUE switches added to a command or git arm's
	// environment; they are part of its [stamp], and so of the ruler.
	Env []string `json:"env,omitempty"`
	// Name is the arm's name in a campaign of named arms (--arm NAME=SPEC,
	// --sweep); "" for --base and --head.
	Name string `json:"name,omitempty"`
	// Sweep is the KEY=VALUE of Env that --sweep set: it names the arm,
	// so the ruler sets it aside as it does the spec.
	Sweep string `json:"sweep,omitempty"`
	// Check is the arm's correctness check, a shell command (--check,
	// the recipe's check): "" for none. It is not part of what the arm
	// measures, so Equal leaves it out.
	Check string `json:"check,omitempty"`
	// Load is the busy processes beside each block of this arm when
	// --sweep load=N1,N2 made it (Sweep is then "load=N"): a condition of
	// the arm, in place of the campaign's Config.Load. nil: the arm runs
	// under the campaign's load (every journal before the sweep).
	Load *int `json:"load,omitempty"`
}

// LoadSetting is the --sweep key that varies the background load rather
// than a setting of the arm: --sweep load=0,2 (docs/ab.md "Under load").
const LoadSetting = "load"

// LoadOf returns the load beside a block of arm a in a campaign of cfg:
// the arm's own when --sweep load= set it, else the campaign's --load N
// or --load-cmd CMD.
func (c Config) LoadOf(a Arm) (n int, command string) {
	if a.Load != nil {
		return *a.Load, ""
	}
	return c.Load, c.LoadCmd
}

// DefaultBase and DefaultHead are the arms of `hbgbench ab` with none
// given: the SM mirror allocated per bind (before simpler's retained mirror)
// against the retained one.
var (
	DefaultBase = Arm{Kind: KindEmbedded, Spec: "embedded:mirror=per_bind,epoch=e2"}
	DefaultHead = Arm{Kind: KindEmbedded, Spec: "embedded:mirror=retained,epoch=e2"}
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

// CommandArm returns the arm of a command template, refused when a
// placeholder stands where it cannot be filled in safely
// (runtimeharness.CheckTemplate).
func CommandArm(template string) (Arm, error) {
	if strings.TrimSpace(template) == "" {
		return Arm{}, fmt.Errorf("empty command template")
	}
	if err := runtimeharness.CheckTemplate(template); err != nil {
		return Arm{}, err
	}
	return Arm{Kind: KindCommand, Spec: template}, nil
}

// Equal reports whether two arms are the same arm, field by field.
func (a Arm) Equal(b Arm) bool {
	return a.Kind == b.Kind && a.Spec == b.Spec && a.Sha == b.Sha && a.Build == b.Build && a.Sweep == b.Sweep &&
		a.Run == b.Run && strings.Join(a.Env, "\x00") == strings.Join(b.Env, "\x00") &&
		(a.Load == nil) == (b.Load == nil) && (a.Load == nil || *a.Load == *b.Load)
}

// Same reports whether two arms run the same thing: an A/A campaign. Two
// git arms are the same when they are one commit built and run alike,
// whatever the refs were called.
func (a Arm) Same(b Arm) bool {
	if a.Kind == KindGit && b.Kind == KindGit {
		a.Spec, b.Spec = "", ""
	}
	return a.Equal(b)
}

// GitArm returns the arm of a ref that resolved to sha; its run template
// is checked as CommandArm checks one.
func GitArm(ref, sha, build, run string, env []string) (Arm, error) {
	if !strings.Contains(run, "{out}") || !strings.Contains(run, "{rounds}") {
		return Arm{}, fmt.Errorf("--run %q: a run template needs {rounds} (the passes of a block) and {out} (its output directory)", run)
	}
	if err := runtimeharness.CheckTemplate(run); err != nil {
		return Arm{}, fmt.Errorf("--run: %w", err)
	}
	return Arm{Kind: KindGit, Spec: ref, Sha: sha, Build: build, Run: run, Env: env}, nil
}

// Label returns how reports name the arm: the ref and its short sha for a
// git arm, else the spec.
func (a Arm) Label() string {
	if a.Kind == KindGit {
		return fmt.Sprintf("%s (%s)", a.Spec, a.Sha[:min(12, len(a.Sha))])
	}
	return a.Spec
}

// namingStrings returns what in a block's stamp names the arm rather than
// the ruler (docs/ab-reference.md "Same ruler"): the embedded spec; the
// command as the block ran it; for a git arm its sha (long and short), ref,
// worktree and command; and the environment switch of a --sweep.
func (a Arm) NamingStrings(command, worktree string) []string {
	if a.Sweep != "" {
		b := a
		b.Sweep = ""
		return append(b.NamingStrings(command, worktree), a.Sweep)
	}
	switch a.Kind {
	case KindCommand:
		return []string{command, a.Spec}
	case KindGit:
		out := []string{command, a.Run, a.Sha, a.Sha[:min(12, len(a.Sha))], a.Sha[:min(7, len(a.Sha))], a.Spec}
		if worktree != "" {
			out = append(out, worktree)
		}
		return out
	}
	return []string{a.Spec}
}
