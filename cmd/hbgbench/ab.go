package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
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
	"github.com/hbgkit/hbgkit/internal/progress"
	"github.com/hbgkit/hbgkit/internal/termsafe"
	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// AbOptions are the settings of one `hbgbench ab` or `hbgbench aa` run:
// the campaign to open (its arms resolved from ArmSpecs when it runs), how
// to report it, and what abRun reaches the world through (Open, Context,
// Out and Err), which tests replace.
type AbOptions struct {
	campaign.Options
	campaign.ArmSpecs

	Out, Err io.Writer
	// Open opens the campaign: openCampaign, or a fake session in tests.
	Open func(context.Context, campaign.Options) (Session, error)
	// Context is cancelled to stop the campaign: signalContext, on SIGINT
	// or SIGTERM.
	Context func() (context.Context, context.CancelFunc)
	// Terminal shows the campaign's progress line on Err
	// (internal/progress); set when Err is a terminal.
	Terminal bool

	Trials int // alternative to --rounds: Trials / Block rounds
	// ShardSpec (--shard I/N) and CampaignID (--campaign) make the run
	// shard I of N of a campaign (docs/ab-operations.md "Shards: one
	// campaign over many cards and hosts"); Options.Shard is
	// what they resolve to.
	ShardSpec, CampaignID string
	NoRecipe              bool // --no-recipe
	Format                string
	Redact                bool // --redact: no host names or absolute paths in the report
	FullTable             bool // --full-table: markdown's full table inline
	FailOn                string
	// ExpectSameWork fails the run (exit 3) when the arms did different work.
	ExpectSameWork bool
	// UntilDecided, MaxRounds and LookEvery are --until-decided's flags
	// (untilDecided wires them to Config).
	UntilDecided         bool
	MaxRounds, LookEvery int

	// Tune, Effect and WriteTuned are aa's --tune, --effect and --write.
	Tune, WriteTuned bool
	Effect           float64

	margin, maxFail, stopWithin, effect string // --margin, --max-fail, --stop-within and --effect as given
	keepFirst                           bool
}

// newAbOptions are the options of ab and aa before their flags are read;
// argv is the command line, for the journal and the report.
func newAbOptions(argv []string) *AbOptions {
	opts := &AbOptions{Open: openCampaign, Context: signalContext}
	opts.Config, opts.Argv = journal.DefaultConfig(), argv
	return opts
}

// NewCmdAb builds the ab command; argv is the command line, for the
// journal and the report. runF replaces abRun in tests; nil means abRun.
func NewCmdAb(argv []string, runF func(*AbOptions) error) *cobra.Command {
	opts := newAbOptions(argv)
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
metric's p Holm-adjusted over the arms (docs/ab-reference.md "More than
two arms").

--check CMD runs CMD (/bin/sh) once per arm in its worktree and
environment before its first block, and again after an extension; an
arm whose check fails gets no verdict (docs/ab.md "Correctness").

Exit status: 0 whatever the verdict; 3 when --fail-on matches it or,
with --expect-same-work, when some pass's work counts differ; 4 with no
verdict; 5 when an arm's --check failed; 1 on an error or abort; 2 on
a usage error; 130 after Ctrl-C (partial report).`,
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
  hbgbench ab --sweep load=0,2 --rounds 20   # one arm under 2 loads
  hbgbench ab --arm main=main --arm pr1=pr1 --arm pr2=pr2 --baseline main
  hbgbench ab --arm run=cmd:'./run.sh {rounds} {out}' --sweep PREWARM=0,4,8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return opts.complete(cmd, args, runF) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Base, "base", "", "base arm: git `REF` or embedded:SPEC")
	f.StringVar(&opts.Head, "head", "", "head arm: git `REF` or embedded:SPEC")
	f.StringVar(&opts.BaseCmd, "base-cmd", "", "base arm: shell `CMD` with {rounds} {out}")
	f.StringVar(&opts.HeadCmd, "head-cmd", "", "head arm: shell `CMD` with {rounds} {out}")
	f.StringArrayVar(&opts.Named, "arm", nil, "named arm `NAME=SPEC`: REF, embedded:.., cmd:CMD")
	f.StringVar(&opts.Baseline, "baseline", "", "the `NAME` of the base arm (default: the first)")
	f.StringVar(&opts.Sweep, "sweep", "", "an arm per value: `K=V1,V2` (delay_us=0,300; load=0,2)")
	f.StringVar(&opts.ShardSpec, "shard", "", "run shard `I/N` of --campaign (0/8), --rounds each")
	f.StringVar(&opts.CampaignID, "campaign", "", "campaign `ID` of the shards ($SLURM_ARRAY_JOB_ID)")
	campaignFlags(f, opts)
	return cmd
}

// NewCmdAA builds the aa command: ab's campaign with one arm, ARM or
// --cmd, on both sides. runF replaces abRun in tests; nil means abRun.
func NewCmdAA(argv []string, runF func(*AbOptions) error) *cobra.Command {
	opts := newAbOptions(argv)
	opts.AA = true
	cmd := &cobra.Command{
		Use:   "aa [ARM] [flags]",
		Short: "A/A calibration: one arm twice, its noise and a margin",
		Long: `aa runs the campaign of ab with the same arm as base and head: no change
is real, so what it measures is the noise. It reports σ_d (the spread of
one round's log-ratio), the minimum detectable effect of this many rounds,
and a suggested --margin for ab campaigns on this host. ARM is an embedded
spec (default embedded:, the default model), a git ref of --repo built
with --build and run with --run as ab's ref arms are (hbgbench.toml
supplies them too), or, with --cmd, a command.`,
		Example: `  hbgbench aa
  hbgbench aa embedded:mirror=retained --rounds 20
  hbgbench aa main --build make --run './run.sh {rounds} {out}'
  hbgbench aa --cmd './run.sh {rounds} {out}' --rounds 12
  hbgbench aa --cpus 1 --rounds 12
  hbgbench aa main --tune --effect 5% --write`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return opts.complete(cmd, args, runF) },
	}
	cmd.Flags().StringVar(&opts.BaseCmd, "cmd", "", "`CMD` template to run on both sides")
	cmd.Flags().BoolVar(&opts.Tune, "tune", false, "measure block lengths and statistics; recommend one")
	cmd.Flags().StringVar(&opts.effect, "effect", "10%", "the change --tune designs for")
	cmd.Flags().BoolVar(&opts.WriteTuned, "write", false, "--tune: write the design into hbgbench.toml")
	campaignFlags(cmd.Flags(), opts)
	return cmd
}

// campaignFlags adds the flags ab and aa share to f.
func campaignFlags(f *pflag.FlagSet, opts *AbOptions) {
	def := journal.DefaultConfig()
	f.StringVar(&opts.Dir, "dir", "", "working `DIR` of command arms (default: here)")
	f.StringVar(&opts.Repo, "repo", "", "git `DIR` of ref arms (default: this one)")
	f.StringVar(&opts.Build, "build", "", "`CMD` run once per ref in its worktree")
	f.StringVar(&opts.Run, "run", "", "`CMD` per block: {worktree} {rounds} {out}")
	f.StringVar(&opts.Check, "check", "", "correctness `CMD` run per arm before its blocks")
	f.StringArrayVar(&opts.CheckArm, "check-arm", nil, "`A=CMD`: arm A's own check (base, head, an --arm)")
	f.StringVar(&opts.Cache, "cache", "", "worktree `DIR` (default ~/.cache/hbgkit/...)")
	f.StringVar(&opts.Artifact, "artifact", "", "build output `GLOB`: equal hashes = A/A")
	f.StringArrayVar(&opts.Env, "env", nil, "`KEY=VALUE` for command and ref arms")
	f.StringVar(&opts.Lock, "lock", "", "lock `FILE` held while the campaign runs")
	f.BoolVar(&opts.NoRecipe, "no-recipe", false, "ignore the repository's hbgbench.toml")
	f.IntVar(&opts.Config.Rounds, "rounds", def.Rounds, "`R` rounds (one block per arm each)")
	f.IntVar(&opts.Trials, "trials", 0, "`N` passes per arm (R = N/block)")
	f.IntVar(&opts.Config.Block, "block", def.Block, "`r` passes per block ({rounds})")
	f.IntVar(&opts.Config.Warmup, "warmup", def.Warmup, "`N` blocks per arm before round 1")
	f.StringVar((*string)(&opts.Config.Order), "order", string(def.Order), "round `order`: rmit, abba, abab")
	f.IntVar(&opts.Config.Cold, "cold", def.Cold, "`N` first passes per pid dropped")
	f.BoolVar(&opts.keepFirst, "keep-first", false, "keep every pass (--cold 0)")
	f.BoolVar(&opts.Config.PerRank, "per-rank", false, "analyse each rank (pid) separately")
	f.BoolVar(&opts.Config.Records, "records", false, "embedded arms write records: the lanes.* metrics")
	f.StringVar(&opts.Config.Metric, "metric", "", "primary `metric` (default ControlPlane; list: all)")
	f.StringArrayVar(&opts.Config.Derive, "derive", nil, "derived metric `NAME=EXPR` (+ - * / of metrics)")
	f.StringVar((*string)(&opts.Config.BlockStat), "block-stat", "", "block `stat`: median, mean, min (min from 6 warm)")
	f.IntVar(&opts.Config.Trim, "trim", -1, "`K` passes cut at each end (-1: 20%)")
	f.StringVar(&opts.margin, "margin", "1%", "equivalence `margin` (1% or 0.01)")
	f.DurationVar(&opts.Config.Timeout, "timeout", 0, "kill a block after `D` (e.g. 10m); 0: no limit")
	f.IntVar(&opts.Config.Retries, "retries", def.Retries, "`N` more tries of a failed block")
	f.StringVar(&opts.maxFail, "max-fail", "10%", "abort past this `share` dropped")
	f.IntVar(&opts.Config.Bootstrap, "bootstrap", 0, "`N` round resamples for a bootstrap CI")
	f.StringVar(&opts.Config.CPUs, "cpus", "", "pin all blocks to CPUs `LIST` (0, 0-1, 0,2-3)")
	f.IntVar(&opts.Config.Load, "load", 0, "`N` busy processes beside every block (on --cpus)")
	f.StringVar(&opts.Config.LoadCmd, "load-cmd", "", "`CMD` run beside every block, as --load's load")
	f.Uint64Var(&opts.Seed, "seed", 0, "schedule `seed` (default random, journaled)")
	f.StringVar(&opts.Journal, "journal", "", "`FILE` (default .hbgbench/hbgbench-<UTC>.jsonl)")
	f.BoolVar(&opts.Resume, "resume", false, "continue --journal (default: the newest campaign)")
	f.StringVar(&opts.Format, "format", "text", "text|markdown|json|csv|benchfmt")
	f.BoolVar(&opts.Redact, "redact", false, "drop host names, absolute paths, --env values")
	f.BoolVar(&opts.FullTable, "full-table", false, "markdown: the full table inline, not the short one")
	f.StringVar(&opts.FailOn, "fail-on", "", "exit 3 when the verdict is `slower` or a change")
	f.BoolVar(&opts.ExpectSameWork, "expect-same-work", false, "exit 3 when the arms' work counts differ")
	f.BoolVar(&opts.UntilDecided, "until-decided", false, "look every --look-every rounds; stop when decided")
	f.IntVar(&opts.MaxRounds, "max-rounds", 0, "`N` most rounds of --until-decided (--rounds or 40)")
	f.IntVar(&opts.LookEvery, "look-every", defaultLookEvery, "`K` rounds between --until-decided's looks")
	f.StringVar(&opts.stopWithin, "stop-within", "7.5%", "stop on \"no change of `W` or more\"")
}

// complete fills the options from the flags, the recipe and aa's ARM,
// refuses what cannot run before any work, and runs runF (nil: abRun).
func (opts *AbOptions) complete(cmd *cobra.Command, args []string, runF func(*AbOptions) error) error {
	if opts.Config.Metric == metricList {
		return listMetrics(cmd.OutOrStdout())
	}
	if len(args) == 1 { // aa's ARM
		opts.Base = args[0]
	}
	if err := opts.tuneFlags(cmd); err != nil {
		return usagef(cmd, "%v", err)
	}
	if err := loadRecipe(cmd, opts); err != nil {
		return err
	}
	fl := cmd.Flags()
	if opts.keepFirst {
		if fl.Changed("cold") {
			return usagef(cmd, "give --cold or --keep-first, not both")
		}
		opts.Config.Cold = 0
	}
	opts.Out, opts.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
	opts.Given = map[string]string{}
	fl.Visit(func(f *pflag.Flag) { opts.Given[f.Name] = f.Value.String() })
	var err error
	if opts.Config.Margin, err = journal.ParseShare(opts.margin); err != nil {
		return usagef(cmd, "--margin %v", err)
	}
	if opts.Config.MaxFail, err = journal.ParseShare(opts.maxFail); err != nil {
		return usagef(cmd, "--max-fail %v", err)
	}
	opts.SeedSet = fl.Changed("seed")
	if opts.Trials > 0 {
		if fl.Changed("rounds") {
			return usagef(cmd, "give --rounds or --trials, not both")
		}
		opts.Config.Rounds = (opts.Trials + opts.Config.Block - 1) / opts.Config.Block
	}
	if err := untilDecided(cmd, opts); err != nil {
		return usagef(cmd, "%v", err)
	}
	if len(args) == 1 {
		if opts.BaseCmd != "" {
			return usagef(cmd, "give ARM or --cmd, not both")
		}
		opts.Given["arm"] = args[0]
	}
	if err := abreport.CheckFormat(opts.Format); err != nil {
		return usagef(cmd, "%v", err)
	}
	_, until := opts.Given["until-decided"]
	if opts.Shard, err = journal.ShardOf(opts.ShardSpec, opts.CampaignID, until, opts.Seed, opts.SeedSet); err != nil {
		return usagef(cmd, "%v", err)
	}
	if err := opts.CheckNamed(); err != nil {
		return usagef(cmd, "%v", err)
	}
	switch opts.FailOn {
	case "", "slower", "change":
	default:
		return usagef(cmd, "--fail-on %q: want slower or change", opts.FailOn)
	}
	if opts.Config.BlockStat == "" {
		opts.Config.BlockStat = journal.DefaultBlockStat(opts.Config.Block, opts.Config.Cold)
	}
	if !opts.Resume {
		if err := opts.Config.Validate(); err != nil {
			return usagef(cmd, "%w", err)
		}
	}
	opts.Terminal = progress.Terminal(opts.Err)
	opts.Version = buildinfo.Read().String()
	if runF != nil {
		return runF(opts)
	}
	return abRun(opts)
}

// loadRecipe applies the repository's hbgbench.toml (campaign.FindRecipe)
// to the flags the command line left unset, and says so. A resumed
// campaign takes its settings from its journal instead.
func loadRecipe(cmd *cobra.Command, opts *AbOptions) error {
	if opts.Resume || opts.NoRecipe {
		return nil
	}
	warn := warnings(cmd.ErrOrStderr())
	r, path, err := campaign.FindRecipe(opts.Repo, opts.NamesGitRef(), warn)
	warn.Flush()
	if r == nil || err != nil {
		return err
	}
	if opts.RecipeSet, opts.RecipeEnv, err = applyRecipe(cmd, r, path); err != nil {
		return err
	}
	opts.Recipe = path
	if len(opts.RecipeSet) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "hbgbench: applying %s (--no-recipe ignores it):\n  %s\n", termsafe.Escape(path), termsafe.Escape(strings.Join(opts.RecipeSet, "\n  ")))
	}
	return nil
}

// metricList is the --metric value that lists the metrics.
const metricList = "list"

// listMetrics prints every metric --metric takes: name, unit, family.
func listMetrics(w io.Writer) error {
	_, err := fmt.Fprintln(w, strings.Join(metric.MetricList(), "\n"))
	return err
}

// listLogMetrics prints the metrics the logs record, known and open:
// compare's --metric list with logs.
func listLogMetrics(w io.Writer, logs []string) error {
	var blocks [][]string
	for _, l := range logs {
		blocks = append(blocks, []string{l})
	}
	lines, err := metric.MetricListOfLogs(blocks)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, strings.Join(lines, "\n"))
	return err
}

// defaultLookEvery is --look-every's default: a look every 5 rounds.
const defaultLookEvery = 5

// untilDecided wires --until-decided, --max-rounds, --look-every and
// --stop-within to
// the config: the most rounds are --max-rounds, or --rounds (--trials)
// when only it is given, else defaultMaxRounds. On
// --resume the journal's design holds, and --max-rounds N is --rounds N:
// it extends the campaign.
func untilDecided(cmd *cobra.Command, opts *AbOptions) error {
	fl := cmd.Flags()
	if !opts.UntilDecided && !opts.Resume {
		for _, name := range []string{"max-rounds", "look-every", "stop-within"} {
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
	if opts.UntilDecided || fl.Changed("stop-within") {
		w, err := journal.ParseShare(opts.stopWithin)
		if err != nil {
			return fmt.Errorf("--stop-within %v", err)
		}
		opts.Config.StopWithin = journal.Num(w)
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
		opts.Given["rounds"] = strconv.Itoa(opts.MaxRounds)
	case !rounds && !opts.Resume:
		opts.Config.Rounds = defaultMaxRounds
	}
	return nil
}

// defaultMaxRounds is --max-rounds' default when neither it nor --rounds
// is given: four times the default fixed design's rounds.
const defaultMaxRounds = 40

// A Session is an open campaign as abRun drives it: a *campaign.Session
// (openCampaign), or a fake in tests.
type Session interface {
	Opened() (h journal.Header, journalPath string)
	TotalBlocks() int
	Run(context.Context) error
	Read() (*journal.Journal, error) // what the campaign journaled
	Close()
}

// openCampaign opens the campaign of o (campaign.Open).
func openCampaign(ctx context.Context, o campaign.Options) (Session, error) {
	s, err := campaign.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	return liveSession{s}, nil
}

// liveSession is a *campaign.Session as a Session.
type liveSession struct{ *campaign.Session }

func (s liveSession) Opened() (journal.Header, string) { return s.Header, s.Journal }

func (s liveSession) Read() (*journal.Journal, error) { return journal.ReadJournal(s.Journal) }

// signalContext is cancelled by SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// abRun opens the campaign, runs it, analyses what it journaled and
// writes the report; exitPolicy says how the run ends.
func abRun(opts *AbOptions) error {
	ctx, stop := opts.Context()
	defer stop()
	if err := opts.ArmSpecs.Resolve(&opts.Options); err != nil {
		return &usageError{err: err}
	}
	warn := warnings(opts.Err)
	defer warn.Flush()
	opts.Warn = warn
	var bar *progress.Line
	opts.watch(&bar)
	s, err := opts.Open(ctx, opts.Options)
	if err != nil {
		end := exitPolicy(err, nil, opts, "")
		fmt.Fprint(opts.Err, end.before)
		return end.err(err)
	}
	defer s.Close()
	h, path := s.Opened()
	campaign.Announce(warn, h, path)
	if opts.Terminal {
		bar = progress.StartOn(opts.Err, progress.Options{Program: "hbgbench", Unit: "blocks",
			Total: int64(s.TotalBlocks()), Every: time.Second})
	}
	runErr := s.Run(ctx)
	bar.Finish()

	j, err := s.Read()
	if err != nil {
		return cmp.Or(runErr, err)
	}
	a := analysis.Analyze(j)
	end := exitPolicy(runErr, a, opts, path)
	fmt.Fprint(opts.Err, end.before)
	if end.report {
		err := abreport.Write(opts.Out, abreport.WriteOptions{Format: opts.Format, Redact: opts.Redact, AA: opts.AA, FullTable: opts.FullTable}, a, j)
		if err != nil && end.code != exitFailed {
			return err
		}
	}
	if opts.Tune && end.report && end.code != exitFailed {
		if err := tune(opts, a, j); err != nil {
			return err
		}
	}
	fmt.Fprint(opts.Err, end.after)
	return end.err(runErr)
}

// tuneFlags checks aa's --tune, --effect and --write and gives a tuning
// campaign its long blocks (40 passes, truncated to each candidate) and 20
// rounds, unless the command line gives them: before the recipe, so that
// a tuned recipe's block does not shorten the next tuning.
func (opts *AbOptions) tuneFlags(cmd *cobra.Command) error {
	fl := cmd.Flags()
	if fl.Lookup("tune") == nil {
		return nil
	}
	if !opts.Tune {
		for _, name := range []string{"effect", "write"} {
			if fl.Changed(name) {
				return fmt.Errorf("--%s needs --tune", name)
			}
		}
		return nil
	}
	e, err := journal.ParseShare(opts.effect)
	if err != nil {
		return fmt.Errorf("--effect %v", err)
	}
	if opts.Effect = e; !(e > 0 && e < 1) {
		return fmt.Errorf("--effect %s: want a change between 0 and 100%%", opts.effect)
	}
	switch {
	case opts.UntilDecided:
		return fmt.Errorf("--tune with --until-decided: tuning measures a fixed number of A/A rounds")
	case opts.Resume:
		return fmt.Errorf("--tune with --resume: tune a fresh A/A campaign")
	}
	for name, v := range map[string]string{"block": "40", "rounds": "20"} {
		if !fl.Changed(name) && !(name == "rounds" && fl.Changed("trials")) {
			if err := fl.Set(name, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// tune writes aa --tune's candidate table after the A/A report and, with
// --write, the recommended design into the repository's hbgbench.toml.
func tune(opts *AbOptions, a *analysis.Analysis, j *journal.Journal) error {
	t, err := analysis.Tune(j, opts.Effect)
	if err != nil {
		return err
	}
	fmt.Fprintln(opts.Out)
	if err := abreport.WriteTuning(opts.Out, opts.Format, t, a.Complete); err != nil || !opts.WriteTuned {
		return err
	}
	if t.Best < 0 {
		return fmt.Errorf("--write: no design to write (see the table above)")
	}
	path, err := campaign.RecipePath(opts.Repo)
	if err != nil {
		return fmt.Errorf("--write: %w", err)
	}
	b := t.Candidates[t.Best]
	if err := campaign.WriteTuned(path, b.Block, string(b.BlockStat), abreport.TunedNote(t, a)); err != nil {
		return err
	}
	fmt.Fprintf(opts.Err, "hbgbench: wrote block = %d, block_stat = %q and where they came from (tuned) to %s\n", b.Block, b.BlockStat, path)
	return nil
}

// watch sets the campaign's progress callbacks: the progress line on a
// terminal (*bar, once abRun starts it), else a line per round.
func (opts *AbOptions) watch(bar **progress.Line) {
	if opts.Terminal {
		opts.Progress = func(done, total int, label string) { (*bar).Set(int64(done), label) }
		return
	}
	start := time.Now()
	opts.RoundDone = func(r journal.RoundRecord, total int) {
		fmt.Fprintf(opts.Err, "hbgbench: round %d of %d %s (%s)\n", r.Round, total, r.Status, time.Since(start).Round(time.Second))
	}
}

// Exit statuses of ab and aa.
const (
	exitOK          = 0
	exitFailed      = 1   // an error, which main prints (and maps, as it does any)
	exitUsage       = 2   // settings that cannot run
	exitFailOn      = 3   // --fail-on matched a verdict, or --expect-same-work a difference
	exitNoVerdict   = 4   // the campaign ran but its primary metric has no verdict
	exitCheckFailed = 5   // an arm's correctness check (--check) failed: no verdict
	exitInterrupted = 130 // SIGINT or SIGTERM: the partial report was printed
)

// An ending is how an ab or aa run ends: its exit status, whether it
// prints the report, and what it says on stderr before the report (why
// it is partial) and after it.
type ending struct {
	code          int
	report        bool
	before, after string
}

// exitPolicy decides how an ab or aa run ends from how the campaign ended
// (err: Open's, or Run's once it opened), its analysis (nil when it did
// not open) and the options; journalPath is the campaign's journal, for
// the hints that name it.
func exitPolicy(err error, a *analysis.Analysis, opts *AbOptions, journalPath string) ending {
	var se *campaign.SettingsError
	switch {
	case a == nil && errors.Is(err, campaign.ErrInterrupted):
		return ending{code: exitInterrupted, before: "hbgbench: interrupted while building the worktrees; no block ran, the worktrees are removed\n"}
	case a == nil && errors.As(err, &se):
		return ending{code: exitUsage}
	case errors.Is(err, campaign.ErrInterrupted):
		return ending{code: exitInterrupted, report: true, before: fmt.Sprintf(
			"hbgbench: interrupted: the block in flight was killed; resume with: hbgbench %s --resume --journal %s\n", opts.command(), journalPath)}
	case err != nil:
		// What ran is reported, if a round completed; the error follows.
		return ending{code: exitFailed, report: a != nil && a.Complete > 0}
	}
	end := ending{code: exitOK, report: true}
	if n := a.SettleRounds(); n > 0 {
		end.after = fmt.Sprintf("hbgbench: to settle it, extend this campaign: hbgbench %s --resume --journal %s --rounds %d\n",
			opts.command(), runtimeharness.ShellQuote(journalPath), n)
	}
	// A faster arm that computes the wrong result is no win: a failed
	// correctness check ends the run before any verdict is read.
	if a.CheckFailed != "" {
		end.code = exitCheckFailed
		end.after = "hbgbench: " + a.CheckFailed + "\n"
		return end
	}
	for _, v := range a.Views() {
		if opts.ExpectSameWork && len(v.WorkDiffs) > 0 {
			end.code = exitFailOn
			end.after += fmt.Sprintf("hbgbench: --expect-same-work: %s\n", abreport.For(v).SameWorkLine())
			return end
		}
	}
	// Under --per-rank every rank's verdict counts, and with more than
	// two arms every arm's: a regression on one fails the gate.
	for _, v := range a.Views() {
		for _, p := range v.PrimaryResults() {
			if p.Verdict.FailsOn(opts.FailOn) {
				end.code = exitFailOn
				return end
			}
		}
	}
	// A campaign that ran but has nothing to say of its primary metric
	// is not a success a CI may read as one.
	if why := a.NoVerdict(); why != "" {
		end.code = exitNoVerdict
		end.after += "hbgbench: " + why + "\n"
	}
	return end
}

// err is what abRun returns for an ending: nil, cause itself for main to
// print, cause as a usage error, or the exit status alone.
func (e ending) err(cause error) error {
	switch e.code {
	case exitOK:
		return nil
	case exitFailed:
		return cause
	case exitUsage:
		return &usageError{err: cause}
	}
	return &exitError{code: e.code}
}

// command is the subcommand the campaign runs under: ab or aa.
func (opts *AbOptions) command() string {
	if opts.AA {
		return "aa"
	}
	return "ab"
}
