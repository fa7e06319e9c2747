package main

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/runtimeharness"
)

// namedArmFlags reports whether ab was given named arms: --arm or
// --sweep.
func (opts *AbOptions) namedArmFlags() bool { return len(opts.Arms) > 0 || opts.Sweep != "" }

// checkNamedArmFlags refuses flag combinations of named arms that cannot
// be a campaign, before anything runs.
func (opts *AbOptions) checkNamedArmFlags() error {
	if !opts.namedArmFlags() {
		if opts.Baseline != "" {
			return errors.New("--baseline names one of the arms of --arm or --sweep; give those")
		}
		return nil
	}
	if opts.Base != "" || opts.Head != "" || opts.BaseCmd != "" || opts.HeadCmd != "" {
		return errors.New("give the arms with --arm/--sweep or with --base/--head (--base-cmd/--head-cmd), not both")
	}
	if opts.Sweep != "" && len(opts.Arms) > 1 {
		return errors.New("--sweep varies one arm: give it once with --arm NAME=SPEC (or not at all: the embedded model), not several")
	}
	if opts.Sweep == "" && len(opts.Arms) == 1 {
		return errors.New("one --arm: a campaign compares at least two arms; give --arm again, or --sweep to vary this one")
	}
	return nil
}

// namedArms resolves the arms of --arm and --sweep, base first (the first,
// or --baseline's).
func (opts *AbOptions) namedArms() ([]journal.Arm, error) {
	if err := opts.checkNamedArmFlags(); err != nil {
		return nil, err
	}
	var arms []journal.Arm
	for _, s := range opts.Arms {
		name, spec, err := journal.ParseNamedArm(s)
		if err != nil {
			return nil, err
		}
		a, err := opts.specArm(spec)
		if err != nil {
			return nil, fmt.Errorf("--arm %s: %w", name, err)
		}
		a.Name = name
		arms = append(arms, a)
	}
	if opts.Sweep != "" {
		var err error
		if arms, err = opts.sweepArms(arms); err != nil {
			return nil, err
		}
	}
	if err := journal.CheckArms(arms); err != nil {
		return nil, err
	}
	if opts.Baseline != "" {
		i := slices.IndexFunc(arms, func(a journal.Arm) bool { return a.Name == opts.Baseline })
		if i < 0 {
			names := make([]string, len(arms))
			for k, a := range arms {
				names[k] = a.Name
			}
			return nil, fmt.Errorf("--baseline %s: no arm has that name; the arms: %s", opts.Baseline, strings.Join(names, ", "))
		}
		base := arms[i]
		arms = append([]journal.Arm{base}, slices.Delete(arms, i, i+1)...)
	}
	if len(arms) > 2 && opts.Artifact != "" {
		return nil, errors.New("--artifact compares the builds of two arms; it is not available with more than two")
	}
	return arms, nil
}

// specArm is the arm of --arm's SPEC: cmd:TEMPLATE, an embedded spec or
// a git ref, as --base-cmd, --base and --head read theirs.
func (opts *AbOptions) specArm(spec string) (journal.Arm, error) {
	if t, ok := strings.CutPrefix(spec, journal.CommandPrefix); ok {
		a, _, err := opts.armOf("", t, "arm")
		a.Env = opts.Env
		return a, err
	}
	a, _, err := opts.armOf(spec, "", "arm")
	return a, err
}

var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// sweepArms makes the arms of --sweep: one per value, the first the base.
// With no --arm it varies a setting of the embedded model
// (embedded:SETTING=V); with one --arm, that arm: a setting of its
// embedded spec, or an environment variable of its command or git ref
// (KEY=V, replacing the KEY of --env or hbgbench.toml's [env]).
func (opts *AbOptions) sweepArms(given []journal.Arm) ([]journal.Arm, error) {
	sw, err := journal.ParseSweep(opts.Sweep)
	if err != nil {
		return nil, err
	}
	tmpl := journal.Arm{Kind: journal.KindEmbedded, Spec: "embedded:"}
	var tmplSpec string
	if len(given) == 1 {
		tmpl = given[0]
		_, tmplSpec, _ = journal.ParseNamedArm(opts.Arms[0])
	}
	key, _, _ := strings.Cut(sw.Setting, "=")
	embeddedKey := runtimeharness.DefaultConfig().Get(key) != ""
	var out []journal.Arm
	for i, v := range sw.Values {
		setting := sw.Setting + "=" + v
		var a journal.Arm
		switch {
		case tmpl.Kind == journal.KindEmbedded && !embeddedKey:
			return nil, fmt.Errorf("--sweep %s: %s is not a setting of the embedded model; to sweep an environment variable, give the command or ref arm it reaches with --arm NAME=SPEC", opts.Sweep, key)
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
				return nil, fmt.Errorf("--sweep %s: %w", opts.Sweep, err)
			}
		default:
			if !envKey.MatchString(sw.Setting) {
				return nil, fmt.Errorf("--sweep %s: %q is not an environment variable name (letters, digits, '_'); a command or ref arm is swept through its environment", opts.Sweep, sw.Setting)
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
