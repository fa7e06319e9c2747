package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/internal/buildinfo"
	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/internal/progress"
	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit statuses of ab and aa beyond 0, 1 and 2.
const (
	exitFailOn      = 3   // --fail-on matched the verdict
	exitInterrupted = 130 // SIGINT: the partial report was printed
)

// AbOptions are the settings of one `hbgbench ab` or `hbgbench aa` run.
type AbOptions struct {
	Out, Err io.Writer
	Argv     []string // the command line, for the journal and the report

	AA      bool // hbgbench aa: one arm on both sides
	Base    string
	Head    string
	BaseCmd string
	HeadCmd string
	Dir     string // working directory of command arms
	// Arms (--arm NAME=SPEC), Sweep (--sweep KEY=V1,V2,...) and Baseline
	// (--baseline NAME): named arms, the first or Baseline the base.
	Arms     []string
	Sweep    string
	Baseline string

	// Git arms: --base and --head name refs of Repo, built with Build and
	// run with Run in worktrees under Cache.
	Repo     string
	Build    string
	Run      string
	Cache    string
	Artifact string
	Env      []string // KEY=VALUE switches of command and git arms
	Lock     string   // a lock file held for the whole campaign (a card)
	// Shard ("I/N") and Campaign make the run shard I of N of campaign
	// Campaign (docs/ab.md "Shards"); shard is what they resolve to.
	Shard    string
	Campaign string
	shard    *journal.ShardInfo
	Recipe   string // the hbgbench.toml applied, "" when none
	// RecipeSet lists what the recipe set ("rounds = 8"), RecipeEnv its
	// [env] switches, which reach the git arms only.
	RecipeSet []string
	RecipeEnv []string
	NoRecipe  bool // --no-recipe

	Config  journal.Config
	Trials  int // alternative to --rounds: Trials / Block rounds
	Seed    uint64
	SeedSet bool
	Journal string
	Resume  bool
	Format  string
	Redact  bool // --redact: no host names or absolute paths in the report
	FailOn  string
	// ExpectSameWork fails the run (exit 3) when the arms did different work.
	ExpectSameWork bool
	// Changed names the campaign flags given on the command line, checked
	// against the journal on --resume.
	Changed map[string]string

	// Progress shows the campaign's progress line on Err
	// (internal/progress); set when Err is a terminal.
	Progress bool
	// Exe is the binary embedded arms re-execute; "" means this one.
	Exe string
	// Interrupt, when set, replaces SIGINT/SIGTERM: the campaign stops when
	// the channel is closed (tests).
	Interrupt <-chan struct{}

	// UntilDecided, MaxRounds and LookEvery are --until-decided's flags
	// (untilDecided wires them to Config).
	UntilDecided bool
	MaxRounds    int
	LookEvery    int
}

// NewCmdAb builds the ab command (aa when aa is true). runF replaces abRun
// in tests; nil means abRun.
func NewCmdAb(aa bool, runF func(*AbOptions) error) *cobra.Command {
	opts := &AbOptions{AA: aa, Config: journal.DefaultConfig()}
	var margin, maxFail string
	var keepFirst bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "ab [--base SPEC --head SPEC | --base-cmd CMD --head-cmd CMD] [flags]",
		Short: "Interleaved A/B campaign between two arms, with a verdict",
		Long: `ab runs an interleaved A/B campaign: R rounds, each one block (one fresh
process of --block passes) of the base arm and one of the head arm, in a
seeded random order per round. Every block is journaled (JSONL, fsync'd)
so that --resume continues a killed campaign. The report gives, per metric,
the per-arm trimmed mean, median and min of the warm passes, the paired
Δ = exp(trimmed mean of ln(head/base)) − 1 over rounds with its 95% CI,
Δmin, sign agreement, the Wilcoxon p and a verdict against --margin.

Arms: git refs of --repo are checked out as detached worktrees under a
cache directory, built once with --build and run per block with --run
({worktree} {rounds} {out}); the user's checkout is never touched, and the
worktrees are removed at the end. hbgbench.toml at the repository root
holds these settings (flags override it). Embedded specs
(embedded:workload=...,mirror=...,delay_us=...) run the embedded runtime
model in a child process; --base-cmd/--head-cmd are shell templates with
{rounds} and {out}. A block's log is its output plus every host.*.log it
leaves in {out}. --cpus pins every block of both arms, and what it forks,
to the same CPUs (a git arm's build is not pinned). With no arms, ab
compares embedded:mirror=per_bind (base) with embedded:mirror=retained
(head).

More than two arms: --arm NAME=SPEC, repeated (SPEC a git ref,
embedded:SPEC or cmd:CMD), or --sweep KEY=V1,V2,... (one arm per value:
of the embedded model's KEY, or with one --arm of that arm's spec or, for
a command or ref arm, of its environment variable KEY). The first arm, or
--baseline NAME, is the base; every round runs one block of every arm in a
seeded random order, and every arm is compared with the base, the primary
metric's p Holm-adjusted over the arms (docs/ab.md "More than two arms").

Exit status: 0 whatever the verdict; 3 when --fail-on matches it or,
with --expect-same-work, when the arms' work counts differ; 1 on
an error or abort; 2 on a usage error; 130 after Ctrl-C (partial report).`,
		Example: `  hbgbench ab
  hbgbench ab --base main --head pr        # with an hbgbench.toml
  hbgbench ab --base main --head HEAD --build 'make' \
      --run './run.sh {rounds} {out}' --rounds 6
  hbgbench ab --rounds 20 --block 5 --format markdown
  hbgbench ab --base embedded: --head embedded:delay_us=2000 --rounds 8
  hbgbench ab --base embedded: --head embedded:delay_us=2000 --cpus 1
  hbgbench ab --base-cmd 'old/run.sh {rounds} {out}' \
      --head-cmd 'new/run.sh {rounds} {out}' --timeout 10m
  hbgbench ab --shard 0/8 --campaign nightly --lock /tmp/card0.lock
  hbgbench ab --base embedded: --head embedded:delay_us=2000 \
      --until-decided --max-rounds 40 --look-every 5
  hbgbench ab --resume          # the newest campaign in .hbgbench/
  hbgbench ab --resume --journal .hbgbench/hbgbench-20261202T010000Z.jsonl
  hbgbench ab --sweep recorders=prewarm=0,4,8 --rounds 12   # 3 arms
  hbgbench ab --arm main=main --arm pr1=pr1 --arm pr2=pr2 --baseline main
  hbgbench ab --arm run=cmd:'./run.sh {rounds} {out}' --sweep PREWARM=0,4,8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Config.Metric == metricList {
				return listMetrics(cmd.OutOrStdout())
			}
			if err := loadRecipe(cmd, opts, args); err != nil {
				return err
			}
			if keepFirst {
				if cmd.Flags().Changed("cold") {
					return &usageError{cmd: cmd, err: fmt.Errorf("%s: give --cold or --keep-first, not both", cmd.Name())}
				}
				opts.Config.Cold = 0
			}
			return prepareAb(cmd, args, opts, margin, maxFail, timeout, runF)
		},
	}
	if aa {
		cmd.Use = "aa [ARM] [flags]"
		cmd.Short = "A/A calibration: one arm twice, its noise and a margin"
		cmd.Long = `aa runs the campaign of ab with the same arm as base and head: no change
is real, so what it measures is the noise. It reports σ_d (the spread of
one round's log-ratio), the minimum detectable effect of this many rounds,
and a suggested --margin for ab campaigns on this host. ARM is an embedded
spec (default embedded:, the default model), a git ref of --repo built
with --build and run with --run as ab's ref arms are (hbgbench.toml
supplies them too), or, with --cmd, a command.`
		cmd.Example = `  hbgbench aa
  hbgbench aa embedded:mirror=retained --rounds 20
  hbgbench aa main --build make --run './run.sh {rounds} {out}'
  hbgbench aa --cmd './run.sh {rounds} {out}' --rounds 12
  hbgbench aa --cpus 1 --rounds 12`
		cmd.Args = cobra.MaximumNArgs(1)
	}
	f := cmd.Flags()
	def := journal.DefaultConfig()
	if aa {
		f.StringVar(&opts.BaseCmd, "cmd", "", "`CMD` template to run on both sides")
	} else {
		f.StringVar(&opts.Base, "base", "", "base arm: git `REF` or embedded:SPEC")
		f.StringVar(&opts.Head, "head", "", "head arm: git `REF` or embedded:SPEC")
		f.StringVar(&opts.BaseCmd, "base-cmd", "", "base arm: shell `CMD` with {rounds} {out}")
		f.StringVar(&opts.HeadCmd, "head-cmd", "", "head arm: shell `CMD` with {rounds} {out}")
		f.StringArrayVar(&opts.Arms, "arm", nil, "named arm `NAME=SPEC`: REF, embedded:.., cmd:CMD")
		f.StringVar(&opts.Baseline, "baseline", "", "the `NAME` of the base arm (default: the first)")
		f.StringVar(&opts.Sweep, "sweep", "", "one arm per value: `K=V1,V2` (delay_us=0,300)")
	}
	f.StringVar(&opts.Dir, "dir", "", "working `DIR` of command arms (default: here)")
	f.StringVar(&opts.Repo, "repo", "", "git `DIR` of ref arms (default: this one)")
	f.StringVar(&opts.Build, "build", "", "`CMD` run once per ref in its worktree")
	f.StringVar(&opts.Run, "run", "", "`CMD` per block: {worktree} {rounds} {out}")
	f.StringVar(&opts.Cache, "cache", "", "worktree `DIR` (default ~/.cache/hbgkit/...)")
	f.StringVar(&opts.Artifact, "artifact", "", "build output `GLOB`: equal hashes = A/A")
	f.StringArrayVar(&opts.Env, "env", nil, "`KEY=VALUE` for command and ref arms")
	f.StringVar(&opts.Lock, "lock", "", "lock `FILE` held while the campaign runs")
	if !aa {
		f.StringVar(&opts.Shard, "shard", "", "run shard `I/N` of --campaign (0/8), --rounds each")
		f.StringVar(&opts.Campaign, "campaign", "", "campaign `ID` of the shards ($SLURM_ARRAY_JOB_ID)")
	}
	f.BoolVar(&opts.NoRecipe, "no-recipe", false, "ignore the repository's hbgbench.toml")
	f.IntVar(&opts.Config.Rounds, "rounds", def.Rounds, "`R` rounds (one block per arm each)")
	f.IntVar(&opts.Trials, "trials", 0, "`N` passes per arm (R = N/block)")
	f.IntVar(&opts.Config.Block, "block", def.Block, "`r` passes per block ({rounds})")
	f.IntVar(&opts.Config.Warmup, "warmup", def.Warmup, "`N` blocks per arm before round 1")
	f.StringVar((*string)(&opts.Config.Order), "order", string(def.Order), "round `order`: rmit, abba, abab")
	f.IntVar(&opts.Config.Cold, "cold", def.Cold, "`N` first passes per pid dropped")
	f.BoolVar(&keepFirst, "keep-first", false, "keep every pass (--cold 0)")
	f.BoolVar(&opts.Config.PerRank, "per-rank", false, "analyse each rank (pid) separately")
	f.StringVar(&opts.Config.Metric, "metric", "", "primary `metric` (default ControlPlane; list: all)")
	f.StringVar((*string)(&opts.Config.BlockStat), "block-stat", "", "block `stat`: median, mean, min (min from 6 warm)")
	f.IntVar(&opts.Config.Trim, "trim", -1, "`K` passes cut at each end (-1: 20%)")
	f.StringVar(&margin, "margin", "1%", "equivalence `margin` (1% or 0.01)")
	f.DurationVar(&timeout, "timeout", 0, "kill a block after `D` (e.g. 10m); 0: no limit")
	f.IntVar(&opts.Config.Retries, "retries", def.Retries, "`N` more tries of a failed block")
	f.StringVar(&maxFail, "max-fail", "10%", "abort past this `share` dropped")
	f.IntVar(&opts.Config.Bootstrap, "bootstrap", 0, "`N` round resamples for a bootstrap CI")
	f.StringVar(&opts.Config.CPUs, "cpus", "", "pin all blocks to CPUs `LIST` (0, 0-1, 0,2-3)")
	f.Uint64Var(&opts.Seed, "seed", 0, "schedule `seed` (default random, journaled)")
	f.StringVar(&opts.Journal, "journal", "", "`FILE` (default .hbgbench/hbgbench-<UTC>.jsonl)")
	f.BoolVar(&opts.Resume, "resume", false, "continue --journal (default: the newest campaign)")
	f.StringVar(&opts.Format, "format", "text", "text|markdown|json|csv|benchfmt")
	f.BoolVar(&opts.Redact, "redact", false, "drop host names, absolute paths, --env values")
	f.StringVar(&opts.FailOn, "fail-on", "", "exit 3 when the verdict is `slower` or a change")
	f.BoolVar(&opts.ExpectSameWork, "expect-same-work", false, "exit 3 when the arms' work counts differ")
	f.BoolVar(&opts.UntilDecided, "until-decided", false, "look every --look-every rounds; stop when decided")
	f.IntVar(&opts.MaxRounds, "max-rounds", 0, "`N` most rounds of --until-decided (--rounds or 40)")
	f.IntVar(&opts.LookEvery, "look-every", defaultLookEvery, "`K` rounds between --until-decided's looks")
	return cmd
}

// parseShare reads "1%" or "0.01" as 0.01.
func parseShare(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if p, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = p, 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: want a share such as 1%% or 0.01", s)
	}
	return v * scale, nil
}

func prepareAb(cmd *cobra.Command, args []string, opts *AbOptions, margin, maxFail string,
	timeout time.Duration, runF func(*AbOptions) error) error {
	usage := func(format string, a ...any) error {
		return &usageError{cmd: cmd, err: fmt.Errorf(cmd.Name()+": "+format, a...)}
	}
	opts.Out, opts.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
	if opts.Argv == nil {
		opts.Argv = commandLine
	}
	opts.Changed = map[string]string{}
	cmd.Flags().Visit(func(fl *pflag.Flag) { opts.Changed[fl.Name] = fl.Value.String() })
	var err error
	if opts.Config.Margin, err = parseShare(margin); err != nil {
		return usage("--margin %v", err)
	}
	if opts.Config.MaxFail, err = parseShare(maxFail); err != nil {
		return usage("--max-fail %v", err)
	}
	opts.Config.Timeout = timeout
	opts.SeedSet = cmd.Flags().Changed("seed")
	if opts.Trials > 0 {
		if cmd.Flags().Changed("rounds") {
			return usage("give --rounds or --trials, not both")
		}
		opts.Config.Rounds = (opts.Trials + opts.Config.Block - 1) / opts.Config.Block
	}
	if err := untilDecided(cmd, opts); err != nil {
		return usage("%v", err)
	}
	if opts.AA && len(args) == 1 {
		if opts.BaseCmd != "" {
			return usage("give ARM or --cmd, not both")
		}
		opts.Base = args[0]
		opts.Changed["arm"] = args[0]
	}
	if err := checkFormat(opts.Format); err != nil {
		return usage("%v", err)
	}
	if err := opts.resolveShard(); err != nil {
		return usage("%v", err)
	}
	if err := opts.checkNamedArmFlags(); err != nil {
		return usage("%v", err)
	}
	switch opts.FailOn {
	case "", "slower", "change":
	default:
		return usage("--fail-on %q: want slower or change", opts.FailOn)
	}
	if opts.Config.BlockStat == "" {
		opts.Config.BlockStat = journal.DefaultBlockStat(opts.Config.Block, opts.Config.Cold)
	}
	if !opts.Resume {
		if err := opts.Config.Validate(); err != nil {
			return &usageError{cmd: cmd, err: fmt.Errorf("%s: %w", cmd.Name(), err)}
		}
	}
	opts.Progress = progress.Terminal(opts.Err)
	if runF != nil {
		return runF(opts)
	}
	return abRun(opts)
}

// resolveShard reads --shard and --campaign: both or neither.
func (opts *AbOptions) resolveShard() error {
	switch {
	case opts.Shard == "" && opts.Campaign == "":
		return nil
	case opts.Shard == "":
		return fmt.Errorf("--campaign %s: give --shard I/N as well (a campaign id names a campaign split into shards)", opts.Campaign)
	case opts.Campaign == "":
		return fmt.Errorf("--shard %s: give --campaign ID as well, the same for every shard (e.g. $SLURM_ARRAY_JOB_ID)", opts.Shard)
	}
	i, n, err := journal.ParseShard(opts.Shard)
	if err != nil {
		return err
	}
	if _, ok := opts.Changed["until-decided"]; ok {
		// A shard sees only its own rounds (docs/ab.md "Shards").
		return fmt.Errorf("--until-decided with --shard: a shard sees only its own rounds, so it would stop on 1/%d of the evidence; run fixed --rounds per shard, merge, and extend the shards if the merged verdict is inconclusive", n)
	}
	opts.shard, err = journal.NewShard(opts.Campaign, i, n, opts.Seed, opts.SeedSet)
	return err
}

// arms resolves the two arms from the options.
func (opts *AbOptions) arms() ([2]journal.Arm, error) {
	var arms [2]journal.Arm
	one := opts.armOf
	if opts.AA {
		a, ok, err := one(opts.Base, opts.BaseCmd, "arm")
		if err != nil {
			return arms, err
		}
		if !ok {
			a, _ = journal.ParseEmbedded("embedded:")
		}
		return [2]journal.Arm{a, a}, nil
	}
	b, okB, err := one(opts.Base, opts.BaseCmd, "base")
	if err != nil {
		return arms, err
	}
	h, okH, err := one(opts.Head, opts.HeadCmd, "head")
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
			a.Env = opts.Env
		}
	}
	return [2]journal.Arm{b, h}, nil
}

// armOf is the arm of --base or --head (spec) or of --base-cmd or
// --head-cmd (command); false when neither is given.
func (opts *AbOptions) armOf(spec, command, side string) (journal.Arm, bool, error) {
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
		a, err := opts.gitArm(spec)
		return a, true, err
	}
	return journal.Arm{}, false, nil
}

// repoRoot returns the repository of ref arms: --repo, else the one of
// the current directory.
func (opts *AbOptions) repoRoot() (string, error) {
	dir := opts.Repo
	if dir == "" {
		dir = "."
	}
	return campaign.RepoRoot(dir)
}

// gitArm resolves a ref to its commit before anything runs.
func (opts *AbOptions) gitArm(ref string) (journal.Arm, error) {
	repo, err := opts.repoRoot()
	if err != nil {
		return journal.Arm{}, err
	}
	opts.Repo = repo
	if opts.Run == "" {
		return journal.Arm{}, fmt.Errorf("arm %q is a git ref: give --run 'CMD {rounds} {out}' (or run = in %s)", ref, RecipeFile)
	}
	sha, err := campaign.ResolveRef(repo, ref)
	if err != nil {
		return journal.Arm{}, err
	}
	env := opts.Env
	if len(env) == 0 {
		env = opts.RecipeEnv
	}
	return journal.GitArm(ref, sha, opts.Build, opts.Run, env)
}

// loadRecipe applies the repository's hbgbench.toml to the flags the
// command line left unset, and says so. A recipe configures the campaigns
// of its repository's commits: it applies only when an arm is a git ref
// (its [env] reaches only those arms), never to embedded or command arms
// alone, nor with --no-recipe. A resumed campaign takes its settings from
// its journal instead.
func loadRecipe(cmd *cobra.Command, opts *AbOptions, args []string) error {
	if opts.Resume || opts.NoRecipe {
		return nil
	}
	root, err := opts.repoRoot()
	if err != nil {
		return nil // not a repository: no recipe
	}
	path := filepath.Join(root, RecipeFile)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	if !refArms(opts, args) {
		fmt.Fprintf(cmd.ErrOrStderr(), "hbgbench: %s not applied: it configures campaigns on this repository's git refs, and no arm is one\n", path)
		return nil
	}
	r, err := LoadRecipe(path)
	if err != nil {
		return err
	}
	if opts.RecipeSet, opts.RecipeEnv, err = applyRecipe(cmd, r, path); err != nil {
		return err
	}
	opts.Recipe = path
	if len(opts.RecipeSet) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "hbgbench: applying %s (--no-recipe ignores it):\n  %s\n", path, strings.Join(opts.RecipeSet, "\n  "))
	}
	return nil
}

// refArms reports whether the command line names a git ref as an arm:
// --base or --head (ab), ARM (aa) that is not an embedded spec.
func refArms(opts *AbOptions, args []string) bool {
	specs := []string{opts.Base, opts.Head}
	for _, s := range opts.Arms {
		if _, spec, ok := strings.Cut(s, "="); ok && !strings.HasPrefix(spec, journal.CommandPrefix) {
			specs = append(specs, spec)
		}
	}
	if opts.AA && len(args) == 1 {
		specs = append(specs, args[0])
	}
	for _, s := range specs {
		if s != "" && !strings.HasPrefix(s, "embedded:") {
			return true
		}
	}
	return false
}

// abRun runs (or resumes) the campaign, then writes its report.
func abRun(opts *AbOptions) error {
	ctx, stop := opts.context()
	defer stop()
	var arms [2]journal.Arm
	var all []journal.Arm
	var err error
	if opts.namedArmFlags() {
		all, err = opts.namedArms()
		if len(all) >= 2 {
			arms = [2]journal.Arm{all[0], all[1]}
		}
	} else {
		arms, err = opts.arms()
	}
	if err != nil {
		return &usageError{err: err}
	}
	o := campaign.Options{
		Config: opts.Config, Arms: arms, AllArms: all, AA: opts.AA, Given: opts.Changed, Seed: opts.Seed, SeedSet: opts.SeedSet,
		Journal: opts.Journal, Resume: opts.Resume, Repo: opts.Repo, Cache: opts.Cache, Artifact: opts.Artifact,
		Dir: opts.Dir, Lock: opts.Lock, Shard: opts.shard, Recipe: opts.Recipe, RecipeSet: opts.RecipeSet, Exe: opts.Exe, Argv: opts.Argv, Version: buildinfo.Read().String(), Warn: opts.Err,
	}
	var bar *progress.Line
	if opts.Progress {
		o.Progress = func(done, total int, label string) { bar.Set(int64(done), label) }
	} else {
		start := time.Now()
		o.RoundDone = func(r journal.RoundRecord, total int) {
			fmt.Fprintf(opts.Err, "hbgbench: round %d of %d %s (%s)\n", r.Round, total, r.Status, time.Since(start).Round(time.Second))
		}
	}
	s, err := campaign.Open(ctx, o)
	var se *campaign.SettingsError
	switch {
	case errors.Is(err, campaign.ErrInterrupted):
		fmt.Fprintln(opts.Err, "hbgbench: interrupted while building the worktrees; no block ran, the worktrees are removed")
		return &exitError{code: exitInterrupted}
	case errors.As(err, &se):
		return &usageError{err: err}
	case err != nil:
		return err
	}
	defer s.Close()
	h := s.Header
	labels := make([]string, len(h.ArmList()))
	for i, a := range h.ArmList() {
		labels[i] = a.Label()
		if len(h.AllArms) > 0 {
			labels[i] = a.Name
		}
	}
	fmt.Fprintf(opts.Err, "hbgbench: %s: %d rounds of %d passes per arm, journal %s\n",
		strings.Join(labels, " vs "), h.Config.Rounds, h.Config.Block, s.Journal)
	// What will run, before it runs: a command may come from a recipe.
	for i, a := range h.ArmList() {
		switch a.Kind {
		case journal.KindGit:
			fmt.Fprintf(opts.Err, "hbgbench: each %s block runs in its worktree: %s\n", h.ArmNames()[i], a.Run)
		case journal.KindCommand:
			fmt.Fprintf(opts.Err, "hbgbench: each %s block runs: %s\n", h.ArmNames()[i], a.Spec)
		}
	}
	if opts.Progress {
		bar = progress.StartOn(opts.Err, progress.Options{Program: "hbgbench", Unit: "blocks",
			Total: int64(s.TotalBlocks()), Every: time.Second})
	}
	runErr := s.Run(ctx)
	bar.Finish()

	j, rerr := journal.ReadJournal(s.Journal)
	if rerr != nil {
		if runErr != nil {
			return runErr
		}
		return rerr
	}
	a := analysis.Analyze(j)
	switch {
	case errors.Is(runErr, campaign.ErrInterrupted):
		fmt.Fprintf(opts.Err, "hbgbench: interrupted: the block in flight was killed; resume with: hbgbench %s --resume --journal %s\n",
			opts.command(), s.Journal)
		if err := writeReport(opts.Out, opts.reportOptions(), a, j); err != nil {
			return err
		}
		return &exitError{code: exitInterrupted}
	case runErr != nil:
		if a.Complete > 0 {
			_ = writeReport(opts.Out, opts.reportOptions(), a, j)
		}
		return runErr
	}
	if err := writeReport(opts.Out, opts.reportOptions(), a, j); err != nil {
		return err
	}
	extra := 0
	for _, v := range a.Views() {
		if p := v.PrimaryResult(); p != nil && p.Verdict.IsInconclusive() && p.Extra > 0 {
			extra = max(extra, p.Extra)
		}
	}
	if extra > 0 && !a.Partial {
		fmt.Fprintf(opts.Err, "hbgbench: to settle it, extend this campaign: hbgbench %s --resume --journal %s --rounds %d\n",
			opts.command(), runtimeharness.ShellQuote(s.Journal), j.Header.Config.Rounds+extra)
	}
	for _, v := range a.Views() {
		if opts.ExpectSameWork && len(v.WorkDiffs) > 0 {
			fmt.Fprintf(opts.Err, "hbgbench: --expect-same-work: %s\n", abreport.For(v).SameWorkLine())
			return &exitError{code: exitFailOn}
		}
	}
	// Under --per-rank every rank's verdict counts, and with more than
	// two arms every arm's: a regression on one fails the gate.
	for _, v := range a.Views() {
		for _, p := range v.PrimaryResults() {
			if failsOn(opts.FailOn, p.Verdict) {
				return &exitError{code: exitFailOn}
			}
		}
	}
	return nil
}

// failsOn reports whether a primary row's verdict v matches --fail-on
// failOn: slower on any increase beyond the margin (slower, more, more
// bytes, more CPU), change on an increase or a decrease.
func failsOn(failOn string, v analysis.Verdict) bool {
	switch failOn {
	case "slower":
		return v.IsIncrease()
	case "change":
		return v.IsChange()
	}
	return false
}

// context is cancelled by SIGINT or SIGTERM (or opts.Interrupt).
func (opts *AbOptions) context() (context.Context, context.CancelFunc) {
	if opts.Interrupt != nil {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-opts.Interrupt:
				cancel()
			case <-ctx.Done():
			}
		}()
		return ctx, cancel
	}
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// command is the subcommand the campaign runs under: ab or aa.
func (opts *AbOptions) command() string {
	if opts.AA {
		return "aa"
	}
	return "ab"
}

// reportOptions are the report settings of the run.
func (opts *AbOptions) reportOptions() reportFormat {
	return reportFormat{Format: opts.Format, Redact: opts.Redact, AA: opts.AA}
}

// metricList is the --metric value that lists the metrics.
const metricList = "list"

// listMetrics prints every metric --metric takes: name, unit, family.
func listMetrics(w io.Writer) error {
	ew := &document.ErrWriter{W: w}
	for _, l := range metric.MetricList() {
		ew.Printf("%s\n", l)
	}
	return ew.Err
}

// defaultLookEvery is --look-every's default: a look every 5 rounds.
const defaultLookEvery = 5

// untilDecided wires --until-decided, --max-rounds and --look-every to
// the config: the most rounds are --max-rounds, or --rounds (--trials)
// when only it is given, else defaultMaxRounds. On
// --resume the journal's design holds, and --max-rounds N is --rounds N:
// it extends the campaign.
func untilDecided(cmd *cobra.Command, opts *AbOptions) error {
	fl := cmd.Flags()
	if !opts.UntilDecided && !opts.Resume {
		for _, name := range []string{"max-rounds", "look-every"} {
			if fl.Changed(name) {
				return fmt.Errorf("--%s needs --until-decided", name)
			}
		}
		return nil
	}
	if opts.LookEvery < 1 {
		return fmt.Errorf("--look-every %d: want 1 or more rounds between looks", opts.LookEvery)
	}
	if opts.UntilDecided || fl.Changed("look-every") {
		opts.Config.LookEvery = opts.LookEvery
	}
	rounds := fl.Changed("rounds") || fl.Changed("trials")
	switch {
	case fl.Changed("max-rounds") && rounds && opts.Config.Rounds != opts.MaxRounds:
		return fmt.Errorf("--max-rounds %d and --rounds %d: under --until-decided both are the most rounds; give one", opts.MaxRounds, opts.Config.Rounds)
	case fl.Changed("max-rounds"):
		if opts.MaxRounds < 1 {
			return fmt.Errorf("--max-rounds %d: want 1 or more rounds", opts.MaxRounds)
		}
		opts.Config.Rounds = opts.MaxRounds
		opts.Changed["rounds"] = strconv.Itoa(opts.MaxRounds)
	case !rounds && !opts.Resume:
		opts.Config.Rounds = defaultMaxRounds
	}
	return nil
}

// defaultMaxRounds is --max-rounds' default when neither it nor --rounds
// is given: four times the default fixed design's rounds.
const defaultMaxRounds = 40
