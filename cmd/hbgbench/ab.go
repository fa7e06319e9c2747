package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/internal/buildinfo"
	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/internal/progress"
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
	// shard I of N of a campaign (docs/ab.md "Shards"); Options.Shard is
	// what they resolve to.
	ShardSpec, CampaignID string
	NoRecipe              bool // --no-recipe
	Format                string
	Redact                bool // --redact: no host names or absolute paths in the report
	FailOn                string
	// ExpectSameWork fails the run (exit 3) when the arms did different work.
	ExpectSameWork bool
	// UntilDecided, MaxRounds and LookEvery are --until-decided's flags
	// (untilDecided wires them to Config).
	UntilDecided         bool
	MaxRounds, LookEvery int

	margin, maxFail string // --margin and --max-fail as given
	keepFirst       bool
}

// newAbOptions are the options of ab and aa before their flags are read;
// argv is the command line, for the journal and the report.
func newAbOptions(argv []string) *AbOptions {
	opts := &AbOptions{Open: openCampaign, Context: signalContext}
	opts.Config, opts.Argv = journal.DefaultConfig(), argv
	return opts
}

// NewCmdAb builds the ab command. runF replaces abRun in tests; nil means
// abRun.
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
		RunE: func(cmd *cobra.Command, args []string) error { return opts.complete(cmd, args, runF) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Base, "base", "", "base arm: git `REF` or embedded:SPEC")
	f.StringVar(&opts.Head, "head", "", "head arm: git `REF` or embedded:SPEC")
	f.StringVar(&opts.BaseCmd, "base-cmd", "", "base arm: shell `CMD` with {rounds} {out}")
	f.StringVar(&opts.HeadCmd, "head-cmd", "", "head arm: shell `CMD` with {rounds} {out}")
	f.StringArrayVar(&opts.Named, "arm", nil, "named arm `NAME=SPEC`: REF, embedded:.., cmd:CMD")
	f.StringVar(&opts.Baseline, "baseline", "", "the `NAME` of the base arm (default: the first)")
	f.StringVar(&opts.Sweep, "sweep", "", "one arm per value: `K=V1,V2` (delay_us=0,300)")
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
  hbgbench aa --cpus 1 --rounds 12`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return opts.complete(cmd, args, runF) },
	}
	cmd.Flags().StringVar(&opts.BaseCmd, "cmd", "", "`CMD` template to run on both sides")
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
	f.StringVar(&opts.Cache, "cache", "", "worktree `DIR` (default ~/.cache/hbgkit/...)")
	f.StringVar(&opts.Artifact, "artifact", "", "build output `GLOB`: equal hashes = A/A")
	f.StringArrayVar(&opts.Env, "env", nil, "`KEY=VALUE` for command and ref arms")
	f.StringVar(&opts.Lock, "lock", "", "lock `FILE` held while the campaign runs")
	f.BoolVar(&opts.NoRecipe, "no-recipe", false, "ignore the repository's hbgbench.toml")
	f.IntVar(&opts.Config.Rounds, "rounds", def.Rounds, "`R` rounds (one block per arm each)")
	f.IntVar(&opts.Trials, "trials", 0, "`N` passes per arm (R = N/block)")
	f.IntVar(&opts.Config.Block, "block", def.Block, "`r` passes per block ({rounds})")
	f.IntVar(&opts.Config.Warmup, "warmup", def.Warmup, "`N` blocks per arm before round 1")
	f.StringVar(&opts.Config.Order, "order", def.Order, "round `order`: rmit, abba, abab")
	f.IntVar(&opts.Config.Cold, "cold", def.Cold, "`N` first passes per pid dropped")
	f.BoolVar(&opts.keepFirst, "keep-first", false, "keep every pass (--cold 0)")
	f.BoolVar(&opts.Config.PerRank, "per-rank", false, "analyse each rank (pid) separately")
	f.StringVar(&opts.Config.Metric, "metric", "", "primary `metric` (default ControlPlane; list: all)")
	f.StringVar(&opts.Config.BlockStat, "block-stat", "", "block `stat`: median, mean, min (min from 6 warm)")
	f.IntVar(&opts.Config.Trim, "trim", -1, "`K` passes cut at each end (-1: 20%)")
	f.StringVar(&opts.margin, "margin", "1%", "equivalence `margin` (1% or 0.01)")
	f.DurationVar(&opts.Config.Timeout, "timeout", 0, "kill a block after `D` (e.g. 10m); 0: no limit")
	f.IntVar(&opts.Config.Retries, "retries", def.Retries, "`N` more tries of a failed block")
	f.StringVar(&opts.maxFail, "max-fail", "10%", "abort past this `share` dropped")
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
}

// complete fills the options from the flags, the recipe and aa's ARM,
// refuses what cannot run before any work, and runs runF (nil: abRun).
func (opts *AbOptions) complete(cmd *cobra.Command, args []string, runF func(*AbOptions) error) error {
	if opts.Config.Metric == metricList {
		return listMetrics(cmd.OutOrStdout())
	}
	usage := func(format string, a ...any) error {
		return &usageError{cmd: cmd, err: fmt.Errorf(cmd.Name()+": "+format, a...)}
	}
	if len(args) == 1 { // aa's ARM
		opts.Base = args[0]
	}
	if err := loadRecipe(cmd, opts); err != nil {
		return err
	}
	fl := cmd.Flags()
	if opts.keepFirst {
		if fl.Changed("cold") {
			return usage("give --cold or --keep-first, not both")
		}
		opts.Config.Cold = 0
	}
	opts.Out, opts.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
	opts.Given = map[string]string{}
	fl.Visit(func(f *pflag.Flag) { opts.Given[f.Name] = f.Value.String() })
	var err error
	if opts.Config.Margin, err = parseShare(opts.margin); err != nil {
		return usage("--margin %v", err)
	}
	if opts.Config.MaxFail, err = parseShare(opts.maxFail); err != nil {
		return usage("--max-fail %v", err)
	}
	opts.SeedSet = fl.Changed("seed")
	if opts.Trials > 0 {
		if fl.Changed("rounds") {
			return usage("give --rounds or --trials, not both")
		}
		opts.Config.Rounds = (opts.Trials + opts.Config.Block - 1) / opts.Config.Block
	}
	if err := untilDecided(cmd, opts); err != nil {
		return usage("%v", err)
	}
	if len(args) == 1 {
		if opts.BaseCmd != "" {
			return usage("give ARM or --cmd, not both")
		}
		opts.Given["arm"] = args[0]
	}
	if err := abreport.CheckFormat(opts.Format); err != nil {
		return usage("%v", err)
	}
	if err := opts.resolveShard(); err != nil {
		return usage("%v", err)
	}
	if err := opts.CheckNamed(); err != nil {
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
			return usage("%w", err)
		}
	}
	opts.Terminal = progress.Terminal(opts.Err)
	opts.Version, opts.Warn = buildinfo.Read().String(), opts.Err
	if runF != nil {
		return runF(opts)
	}
	return abRun(opts)
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

// resolveShard reads --shard and --campaign: both or neither.
func (opts *AbOptions) resolveShard() error {
	switch {
	case opts.ShardSpec == "" && opts.CampaignID == "":
		return nil
	case opts.ShardSpec == "":
		return fmt.Errorf("--campaign %s: give --shard I/N as well (a campaign id names a campaign split into shards)", opts.CampaignID)
	case opts.CampaignID == "":
		return fmt.Errorf("--shard %s: give --campaign ID as well, the same for every shard (e.g. $SLURM_ARRAY_JOB_ID)", opts.ShardSpec)
	}
	i, n, err := journal.ParseShard(opts.ShardSpec)
	if err != nil {
		return err
	}
	if _, ok := opts.Given["until-decided"]; ok {
		// A shard sees only its own rounds (docs/ab.md "Shards").
		return fmt.Errorf("--until-decided with --shard: a shard sees only its own rounds, so it would stop on 1/%d of the evidence; run fixed --rounds per shard, merge, and extend the shards if the merged verdict is inconclusive", n)
	}
	opts.Shard, err = journal.NewShard(opts.CampaignID, i, n, opts.Seed, opts.SeedSet)
	return err
}

// loadRecipe applies the repository's hbgbench.toml to the flags the
// command line left unset, and says so. A recipe configures the campaigns
// of its repository's commits: it applies only when an arm is a git ref
// (its [env] reaches only those arms), never to embedded or command arms
// alone, nor with --no-recipe. A resumed campaign takes its settings from
// its journal instead.
func loadRecipe(cmd *cobra.Command, opts *AbOptions) error {
	if opts.Resume || opts.NoRecipe {
		return nil
	}
	root, err := campaign.RepoRoot(cmp.Or(opts.Repo, "."))
	if err != nil {
		return nil // not a repository: no recipe
	}
	path := filepath.Join(root, campaign.RecipeFile)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	if !opts.NamesGitRef() {
		fmt.Fprintf(cmd.ErrOrStderr(), "hbgbench: %s not applied: it configures campaigns on this repository's git refs, and no arm is one\n", path)
		return nil
	}
	r, err := campaign.LoadRecipe(path)
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
		opts.Given["rounds"] = strconv.Itoa(opts.MaxRounds)
	case !rounds && !opts.Resume:
		opts.Config.Rounds = defaultMaxRounds
	}
	return nil
}

// defaultMaxRounds is --max-rounds' default when neither it nor --rounds
// is given: four times the default fixed design's rounds.
const defaultMaxRounds = 40
