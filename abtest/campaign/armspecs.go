package campaign

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/runtimeharness"
)

// ArmSpecs are a campaign's arms as a command line names them: ab's Base
// and Head (git refs or embedded specs) or BaseCmd and HeadCmd, aa's ARM
// (Base) or --cmd (BaseCmd), or named arms (--arm NAME=SPEC, --sweep,
// --baseline); with what git and command arms are built and run with.
// Resolve turns them into an Options' arms before the campaign opens.
type ArmSpecs struct {
	Base, Head       string
	BaseCmd, HeadCmd string
	Named            []string // --arm NAME=SPEC, repeated
	Sweep            string   // --sweep KEY=V1,V2,...
	Baseline         string   // --baseline NAME: the base of the named arms
	Build, Run       string   // a git arm's build command and block command
	Env              []string // KEY=VALUE switches of command and git arms
	RecipeEnv        []string // hbgbench.toml's [env]: git arms' when Env is empty
	// Check is every arm's correctness check (--check), a shell command
	// run in the arm's worktree and environment (check.go).
	Check string
	// CheckArm are --check-arm NAME=CMD, repeated: one arm's check, in
	// place of Check (NAME: base or head, or an --arm's name).
	CheckArm []string
}

// Resolve sets o.Arms from the specs, and o.AllArms for named arms; a
// git ref is resolved to its commit in o.Repo, which becomes the
// repository's root. o.AA makes one arm both sides.
func (s *ArmSpecs) Resolve(o *Options) error {
	r := resolver{s, o}
	var err error
	if !s.named() {
		o.Arms, err = r.pair()
	} else {
		var all []journal.Arm
		all, err = r.namedArms()
		if len(all) >= 2 {
			o.Arms, o.AllArms = [2]journal.Arm{all[0], all[1]}, all
		}
	}
	if err == nil && strings.TrimSpace(s.Check) != "" {
		for i := range o.Arms {
			o.Arms[i].Check = s.Check
		}
		for i := range o.AllArms {
			o.AllArms[i].Check = s.Check
		}
	}
	if err == nil {
		err = s.checkArms(o)
	}
	return err
}

// checkArms sets the checks --check-arm gives, arm by arm: an arm is
// named base or head (its place) or by its --arm name.
func (s *ArmSpecs) checkArms(o *Options) error {
	for _, ca := range s.CheckArm {
		name, cmd, ok := strings.Cut(ca, "=")
		if !ok || strings.TrimSpace(cmd) == "" {
			return &SettingsError{fmt.Errorf("--check-arm %q: want NAME=CMD (base=..., head=..., or an --arm's name)", ca)}
		}
		found := false
		set := func(i int, a *journal.Arm) {
			if a.Name == name || (a.Name == "" && i < 2 && journal.ArmNames[i] == name) {
				a.Check, found = cmd, true
			}
		}
		for i := range o.Arms {
			set(i, &o.Arms[i])
		}
		for i := range o.AllArms {
			set(i, &o.AllArms[i])
		}
		if o.AA && name == journal.ArmNames[journal.Head] {
			return &SettingsError{fmt.Errorf("--check-arm %s: aa runs one arm on both sides; give --check", name)}
		}
		if !found {
			return &SettingsError{fmt.Errorf("--check-arm %s: no arm is named %s", name, name)}
		}
	}
	return nil
}

// NamesGitRef reports whether an arm is a git ref: Base, Head or an
// --arm's SPEC that is neither an embedded spec nor a command.
func (s *ArmSpecs) NamesGitRef() bool {
	specs := []string{s.Base, s.Head}
	for _, a := range s.Named {
		if _, spec, ok := strings.Cut(a, "="); ok && !strings.HasPrefix(spec, journal.CommandPrefix) {
			specs = append(specs, spec)
		}
	}
	return slices.ContainsFunc(specs, func(s string) bool { return s != "" && !strings.HasPrefix(s, "embedded:") })
}

// named reports whether the arms are named: --arm or --sweep.
func (s *ArmSpecs) named() bool { return len(s.Named) > 0 || s.Sweep != "" }

// CheckNamed refuses combinations of named-arm flags that cannot be a
// campaign, before anything runs.
func (s *ArmSpecs) CheckNamed() error {
	if !s.named() {
		if s.Baseline != "" {
			return errors.New("--baseline names one of the arms of --arm or --sweep; give those")
		}
		return nil
	}
	if s.Base != "" || s.Head != "" || s.BaseCmd != "" || s.HeadCmd != "" {
		return errors.New("give the arms with --arm/--sweep or with --base/--head (--base-cmd/--head-cmd), not both")
	}
	if s.Sweep != "" && len(s.Named) > 1 {
		return errors.New("--sweep varies one arm: give it once with --arm NAME=SPEC (or not at all: the embedded model), not several")
	}
	if s.Sweep == "" && len(s.Named) == 1 {
		return errors.New("one --arm: a campaign compares at least two arms; give --arm again, or --sweep to vary this one")
	}
	return nil
}

// A resolver resolves specs into the arms of o.
type resolver struct {
	*ArmSpecs
	o *Options
}

// pair resolves the two arms of ab (base and head, or the embedded
// default pair) or the one of aa.
func (r resolver) pair() ([2]journal.Arm, error) {
	var arms [2]journal.Arm
	if r.o.AA {
		a, ok, err := r.armOf(r.Base, r.BaseCmd, "arm")
		if err != nil {
			return arms, err
		}
		if !ok {
			a, _ = journal.ParseEmbedded("embedded:")
		}
		return [2]journal.Arm{a, a}, nil
	}
	b, okB, err := r.armOf(r.Base, r.BaseCmd, "base")
	if err != nil {
		return arms, err
	}
	h, okH, err := r.armOf(r.Head, r.HeadCmd, "head")
	if err != nil {
		return arms, err
	}
	switch {
	case !okB && !okH:
		b, _ = journal.ParseEmbedded(journal.DefaultBase.Spec)
		h, _ = journal.ParseEmbedded(journal.DefaultHead.Spec)
	case !okB || !okH:
		return arms, errors.New("give both arms (--base and --head, or --base-cmd and --head-cmd), or none for the embedded default")
	}
	for _, a := range []*journal.Arm{&b, &h} {
		if a.Kind == journal.KindCommand {
			a.Env = r.Env
		}
	}
	return [2]journal.Arm{b, h}, nil
}

// armOf is the arm of --base or --head (spec) or of --base-cmd or
// --head-cmd (command); false when neither is given.
func (r resolver) armOf(spec, command, side string) (journal.Arm, bool, error) {
	switch {
	case spec != "" && command != "":
		return journal.Arm{}, false, fmt.Errorf("%s: give an embedded spec or a command, not both", side)
	case command != "":
		a, err := journal.CommandArm(command)
		return a, true, err
	case strings.HasPrefix(spec, "embedded:"):
		a, err := journal.ParseEmbedded(spec)
		return a, true, err
	case spec != "":
		a, err := r.gitArm(spec)
		return a, true, err
	}
	return journal.Arm{}, false, nil
}

// gitArm resolves a ref to its commit before anything runs.
func (r resolver) gitArm(ref string) (journal.Arm, error) {
	dir := r.o.Repo
	if dir == "" {
		dir = "."
	}
	repo, err := RepoRoot(dir)
	if err != nil {
		return journal.Arm{}, err
	}
	r.o.Repo = repo
	if r.Run == "" && r.o.Resume {
		// A resumed campaign's run, build and env are its journal's
		// (the recipe is not read again): the ref is resolved only to be
		// checked against the journal's commit (checkResume).
		sha, err := ResolveRef(repo, ref)
		if err != nil {
			return journal.Arm{}, err
		}
		return journal.Arm{Kind: journal.KindGit, Spec: ref, Sha: sha, Build: r.Build, Env: r.Env}, nil
	}
	if r.Run == "" {
		return journal.Arm{}, fmt.Errorf("arm %q is a git ref: give --run 'CMD {rounds} {out}' (or run = in %s)", ref, RecipeFile)
	}
	sha, err := ResolveRef(repo, ref)
	if err != nil {
		return journal.Arm{}, err
	}
	env := r.Env
	if len(env) == 0 {
		env = r.RecipeEnv
	}
	return journal.GitArm(ref, sha, r.Build, r.Run, env)
}

// namedArms resolves the arms of --arm and --sweep, base first (the first,
// or --baseline's).
func (r resolver) namedArms() ([]journal.Arm, error) {
	if err := r.CheckNamed(); err != nil {
		return nil, err
	}
	var arms []journal.Arm
	for _, s := range r.Named {
		name, spec, err := journal.ParseNamedArm(s)
		if err != nil {
			return nil, err
		}
		a, err := r.specArm(spec)
		if err != nil {
			return nil, fmt.Errorf("--arm %s: %w", name, err)
		}
		a.Name = name
		arms = append(arms, a)
	}
	if r.Sweep != "" {
		var err error
		if arms, err = r.sweepArms(arms); err != nil {
			return nil, err
		}
	}
	if err := journal.CheckArms(arms); err != nil {
		return nil, err
	}
	if r.Baseline != "" {
		i := slices.IndexFunc(arms, func(a journal.Arm) bool { return a.Name == r.Baseline })
		if i < 0 {
			names := make([]string, len(arms))
			for k, a := range arms {
				names[k] = a.Name
			}
			return nil, fmt.Errorf("--baseline %s: no arm has that name; the arms: %s", r.Baseline, strings.Join(names, ", "))
		}
		base := arms[i]
		arms = append([]journal.Arm{base}, slices.Delete(arms, i, i+1)...)
	}
	if len(arms) > 2 && r.o.Artifact != "" {
		return nil, errors.New("--artifact compares the builds of two arms; it is not available with more than two")
	}
	if r.o.Artifact != "" {
		if err := InsidePath(r.o.Artifact); err != nil {
			return nil, fmt.Errorf("--artifact: %w (the worktree's)", err)
		}
	}
	return arms, nil
}

// specArm is the arm of --arm's SPEC: cmd:TEMPLATE, an embedded spec or
// a git ref, as --base-cmd, --base and --head read theirs.
func (r resolver) specArm(spec string) (journal.Arm, error) {
	if t, ok := strings.CutPrefix(spec, journal.CommandPrefix); ok {
		a, _, err := r.armOf("", t, "arm")
		a.Env = r.Env
		return a, err
	}
	a, _, err := r.armOf(spec, "", "arm")
	return a, err
}

var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// sweepArms makes the arms of --sweep: one per value, the first the base.
// With no --arm it varies a setting of the embedded model
// (embedded:SETTING=V); with one --arm, that arm: a setting of its
// embedded spec, or an environment variable of its command or git ref
// (KEY=V, replacing the KEY of --env or hbgbench.toml's [env]).
func (r resolver) sweepArms(given []journal.Arm) ([]journal.Arm, error) {
	sw, err := journal.ParseSweep(r.Sweep)
	if err != nil {
		return nil, err
	}
	tmpl := journal.Arm{Kind: journal.KindEmbedded, Spec: "embedded:"}
	var tmplSpec string
	if len(given) == 1 {
		tmpl = given[0]
		_, tmplSpec, _ = journal.ParseNamedArm(r.Named[0])
	}
	key, _, _ := strings.Cut(sw.Setting, "=")
	embeddedKey := runtimeharness.DefaultConfig().Get(key) != ""
	var out []journal.Arm
	for i, v := range sw.Values {
		setting := sw.Setting + "=" + v
		var a journal.Arm
		switch {
		case sw.Setting == journal.LoadSetting:
			if a, err = r.loadArm(tmpl, v); err != nil {
				return nil, err
			}
		case tmpl.Kind == journal.KindEmbedded && !embeddedKey:
			return nil, fmt.Errorf("--sweep %s: %s is not a setting of the embedded model; to sweep an environment variable, give the command or ref arm it reaches with --arm NAME=SPEC", r.Sweep, key)
		case tmpl.Kind == journal.KindEmbedded:
			spec := "embedded:" + setting
			if len(given) == 1 {
				spec = strings.TrimSuffix(tmplSpec, ",")
				if spec != "embedded:" {
					spec += ","
				}
				spec += setting
			}
			if a, err = journal.ParseEmbedded(spec); err != nil {
				return nil, fmt.Errorf("--sweep %s: %w", r.Sweep, err)
			}
		default:
			if !envKey.MatchString(sw.Setting) {
				return nil, fmt.Errorf("--sweep %s: %q is not an environment variable name (letters, digits, '_'); a command or ref arm is swept through its environment", r.Sweep, sw.Setting)
			}
			a = tmpl
			a.Env = slices.DeleteFunc(slices.Clone(tmpl.Env), func(kv string) bool { return strings.HasPrefix(kv, sw.Setting+"=") })
			a.Env = append(a.Env, setting)
			a.Sweep = setting
		}
		a.Name = sw.Names[i]
		out = append(out, a)
	}
	return out, nil
}

// loadArm is the arm of --sweep load=N1,N2,...'s value v: tmpl (the one
// --arm, or the embedded model) under v busy processes beside each of its
// blocks, a condition of the arm in place of the campaign's --load. The
// sweep names the arm ("load=v"), so its stamp's load=v is set aside from
// the ruler as an environment sweep's switch is.
func (r resolver) loadArm(tmpl journal.Arm, v string) (journal.Arm, error) {
	c := r.o.Config
	if c.Load != 0 || c.LoadCmd != "" {
		return journal.Arm{}, fmt.Errorf("--sweep %s gives each arm its load: leave out --load and --load-cmd (or the recipe's load), which give every arm one", r.Sweep)
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 || n > journal.MaxLoad {
		return journal.Arm{}, fmt.Errorf("--sweep %s: load %q: want 0 to %d busy processes", r.Sweep, v, journal.MaxLoad)
	}
	a := tmpl
	if a.Kind == journal.KindEmbedded {
		// The full spec, as the stamp writes it: "embedded:" alone would
		// be set aside from the stamp as a prefix of it.
		if a, err = journal.ParseEmbedded(a.Spec); err != nil {
			return journal.Arm{}, fmt.Errorf("--sweep %s: %w", r.Sweep, err)
		}
		a.Name, a.Check = tmpl.Name, tmpl.Check
	}
	a.Load = &n
	a.Sweep = runtimeharness.LoadStamp(n, "", true)
	return a, nil
}
