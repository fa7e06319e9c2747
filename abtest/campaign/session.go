package campaign

import (
	"cmp"
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/hbgkit/hbgkit/runtimeharness"
)

// Options are the settings of a campaign to open: a new one, or the one
// of Journal when Resume is set. Relative paths are relative to the
// directory hbgbench started in; Open makes every one absolute before any
// block sees it.
type Options struct {
	Config journal.Config
	// Arms are the arms as given. A resumed campaign runs the journal's
	// arms; these are checked against them when Given names an arm flag.
	Arms [2]journal.Arm
	// AllArms are the arms of a campaign of more than two, base first,
	// each named (--arm, --sweep); Arms is then their first two.
	AllArms []journal.Arm
	AA      bool // aa: one arm on both sides
	// Given names the flags given on the command line (name → value), so
	// that a resume refuses one that disagrees with the journal.
	Given   map[string]string
	Seed    uint64
	SeedSet bool

	// Journal is the journal; "" puts a new one in the campaign home, or
	// with Resume takes the newest there.
	Journal string
	Resume  bool

	Repo     string // the repository of git arms (its root)
	Cache    string // worktree cache; "" means DefaultWorktreeCache
	Artifact string // --artifact glob
	Dir      string // working directory of command arms; "" means the current one
	Lock     string // a lock file held for the whole campaign (a card)
	// Shard makes the campaign shard Shard.Index of a campaign (shard.go):
	// its schedule is drawn from ShardSeed, not Seed, and its journal
	// defaults to ShardJournal.
	Shard *journal.ShardInfo
	// Recipe is the hbgbench.toml applied and RecipeSet what it set, for
	// the journal and the report.
	Recipe    string
	RecipeSet []string

	Exe     string   // the binary embedded arms re-execute; "" means this one
	Argv    []string // the command line, for the journal and the report
	Version string   // hbgkit's version, for the journal
	// Warn gets the campaign's warnings, a line each (indented lines
	// continue the one above), without the program's name: the command
	// puts its own before each line. nil discards them.
	Warn io.Writer

	// Progress and RoundDone are the campaign's callbacks (see Campaign).
	Progress  func(done, total int, label string)
	RoundDone func(r journal.RoundRecord, total int)

	// reserved says resolve created the (empty) journal of a new
	// campaign, which Open removes if it fails before writing to it.
	reserved bool
}

// A SettingsError is a campaign whose settings cannot run, found before
// any work: a usage error.
type SettingsError struct{ Err error }

func (e *SettingsError) Error() string { return e.Err.Error() }

func (e *SettingsError) Unwrap() error { return e.Err }

// A Session is an open campaign: its journal locked, its worktrees built,
// its runners made. Run it, then Close it, however the run ended.
type Session struct {
	// Journal is the journal's absolute path, BlockDir that of its block
	// logs.
	Journal  string
	BlockDir string
	Header   journal.Header
	// Resumed is the journal as read back when the campaign was resumed.
	Resumed *journal.Journal

	opts    Options
	w       *journal.JournalWriter
	lock    *os.File
	dirLock *os.File
	wt      *Worktrees
	// finished: a resumed campaign with nothing left to run (its report
	// is read back; no worktree, build or runner was made).
	finished bool
	runners  []runtimeharness.Runner
}

// resolve makes every path of o absolute, once: the journal (a new one in
// the campaign home), the command arms' directory, the worktree cache, the
// repository and the lock.
func (o *Options) resolve() error {
	abs := func(p *string, what string) error {
		if *p == "" {
			return nil
		}
		a, err := filepath.Abs(*p)
		if err != nil {
			return fmt.Errorf("resolving %s %s: %w", what, *p, err)
		}
		*p = a
		return nil
	}
	if o.Dir == "" {
		o.Dir = "."
	}
	if o.Cache == "" {
		o.Cache = DefaultWorktreeCache()
	}
	if o.Shard != nil {
		// Shards on one host run at once: each checks its worktrees out
		// in a cache of its own (a worktree is locked by the one using it).
		o.Cache = filepath.Join(o.Cache, journal.ShardCacheDir(o.Shard))
	}
	for _, p := range []struct {
		p    *string
		what string
	}{{&o.Journal, "--journal"}, {&o.Dir, "--dir"}, {&o.Cache, "--cache"}, {&o.Repo, "--repo"}, {&o.Lock, "--lock"}} {
		if err := abs(p.p, p.what); err != nil {
			return err
		}
	}
	if o.Journal == "" && o.Shard != nil {
		home, err := Home(o.Repo)
		if err != nil {
			return err
		}
		if err := makeHome(home); err != nil {
			return err
		}
		o.Journal = journal.ShardJournal(home, o.Shard)
	}
	if o.Journal == "" && o.Resume {
		home, err := Home(o.Repo)
		if err != nil {
			return err
		}
		if o.Journal, err = NewestJournal(home); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
	}
	if o.Journal != "" {
		if !o.Resume {
			if err := os.MkdirAll(filepath.Dir(o.Journal), 0o755); err != nil {
				return fmt.Errorf("creating the journal's directory: %w", err)
			}
		}
		return nil
	}
	home, err := Home(o.Repo)
	if err != nil {
		return err
	}
	if err := makeHome(home); err != nil {
		return err
	}
	o.Journal, err = reserveJournal(home, time.Now())
	o.reserved = err == nil
	return err
}

// dropReserved removes the journal resolve reserved, if nothing was
// written to it.
func (o *Options) dropReserved() {
	if o.reserved && journal.EmptyFile(o.Journal) {
		os.Remove(o.Journal)
	}
}

// checkPaths refuses, before anything is written, paths that cannot be
// what they are named for: a journal that is a directory, a device or a
// FIFO; a --lock that is the journal or its block directory; a --dir
// that is not a directory.
func (o *Options) checkPaths() error {
	if fi, err := os.Stat(o.Journal); err == nil && !fi.Mode().IsRegular() {
		what := "a directory"
		if !fi.IsDir() {
			what = "not a regular file (" + fi.Mode().Type().String() + ")"
		}
		return &SettingsError{fmt.Errorf("--journal %s is %s: name a file for the journal", o.Journal, what)}
	}
	if o.Lock != "" && (o.Lock == o.Journal || o.Lock == BlockDir(o.Journal)) {
		return &SettingsError{fmt.Errorf("--lock %s is the campaign's journal or its block directory: name a file of its own for the lock", o.Lock)}
	}
	if o.Dir != "" {
		fi, err := os.Stat(o.Dir)
		switch {
		case err != nil:
			return &SettingsError{fmt.Errorf("--dir %s: %w", o.Dir, errors.Unwrap(err))}
		case !fi.IsDir():
			return &SettingsError{fmt.Errorf("--dir %s is not a directory", o.Dir)}
		}
	}
	return nil
}

// Open opens a campaign: resolves its paths, takes --lock, creates or
// resumes its journal (refusing a journal of another campaign), checks the
// git arms out and builds them, and makes the runners. On an error nothing
// is left open. An interruption while building returns ErrInterrupted
// before any block ran.
func Open(ctx context.Context, o Options) (s *Session, err error) {
	if o.Warn == nil {
		o.Warn = io.Discard
	}
	if err := o.Config.CheckArms(len(o.AllArms), o.Shard != nil); err != nil {
		return nil, &SettingsError{err}
	}
	if n := o.Config.Rounds; !o.Resume && o.Config.LookEvery == 0 && n < analysis.MinIntervalRounds {
		// Refused before any block, as --rounds 0 is: fewer rounds than
		// an interval needs can only end in "no verdict".
		return nil, &SettingsError{fmt.Errorf("--rounds %d: a campaign of fewer than %d rounds can reach no verdict (its 95%% CI needs %d rounds, and a p below 0.05 needs %d)",
			n, analysis.MinIntervalRounds, analysis.MinIntervalRounds, stats.MinRounds)}
	}
	if o.Shard != nil {
		o.Seed, o.SeedSet = journal.ShardSeed(o.Shard.CampaignSeed, o.Shard.Index), true
	}
	if err := o.resolve(); err != nil {
		return nil, err
	}
	if err := o.checkPaths(); err != nil {
		o.dropReserved()
		return nil, err
	}
	s = &Session{Journal: o.Journal, BlockDir: BlockDir(o.Journal), opts: o}
	defer func() {
		if err != nil {
			s.Close()
			s = nil
			o.dropReserved()
		}
	}()
	env := journal.ReadEnv()
	env.Build = buildOf(o.armList())
	if o.Lock != "" {
		if s.lock, err = journal.LockFile(o.Lock); err != nil {
			return s, err
		}
	}
	if err := o.Config.CheckCPUs(""); err != nil {
		return s, &SettingsError{err}
	}
	if o.Resume {
		if s.w, s.Resumed, err = journal.OpenJournal(o.Journal); err != nil {
			return s, err
		}
		s.Header = s.Resumed.Header
		if err := s.Header.Config.CheckCPUs(o.Journal); err != nil {
			return s, &SettingsError{err}
		}
		env.Build = buildOf(s.Header.ArmList())
		if _, given := o.Given["cache"]; !given && s.Header.Cache != "" {
			s.opts.Cache = s.Header.Cache
		}
		if err := o.checkResume(s.Header, env); err != nil {
			return s, err
		}
		if o.extends(s.Header) {
			if d := analysis.DecidedLook(s.Resumed.Looks); d != nil {
				return s, &SettingsError{fmt.Errorf("--resume --rounds %d: the campaign was decided (%s) at look %d after %d rounds; a decided campaign is not extended: start a new one",
					o.Config.Rounds, d.Decision, d.Look, d.Round)}
			}
			from := s.Header.Config.Rounds
			if err := s.Header.Extend(o.Config.Rounds); err != nil {
				return s, &SettingsError{err}
			}
			rec := journal.ExtendRecord{Type: journal.LineExtend, Rounds: o.Config.Rounds}
			if sc := s.Header.Schedule; len(sc.Orders) > 0 {
				rec.Orders = sc.Orders[from:]
			} else {
				rec.Firsts = sc.Firsts[from:]
			}
			if err := s.w.Append(rec); err != nil {
				return s, err
			}
			s.Resumed.Header = s.Header
			fmt.Fprintf(o.Warn, "extending the campaign from %d to %d rounds (same seed stream, ruler and config)\n", from, o.Config.Rounds)
		}
		for _, m := range s.Resumed.Warnings {
			fmt.Fprintf(o.Warn, "warning: %s\n", m)
		}
		if finished(s.Resumed) {
			// Nothing is left to run: the report is read from the
			// journal, so nothing is checked out, built or started.
			fmt.Fprintf(o.Warn, "%s is finished: nothing to check out, build or run; its report follows (--rounds N extends it)\n", o.Journal)
			s.finished = true
			return s, nil
		}
	} else {
		if _, err := os.Lstat(o.Journal); err == nil && !journal.EmptyFile(o.Journal) {
			return s, fmt.Errorf("journal %s exists: resume it with --resume, or name another with --journal", o.Journal)
		}
		seed := o.Seed
		if !o.SeedSet {
			seed = randomSeed()
		}
		s.Header, err = journal.NewHeader(o.Config, o.Arms, seed, o.Version, o.Argv, env)
		if err != nil {
			return s, &SettingsError{err}
		}
		if len(o.AllArms) > 2 {
			if err := s.Header.SetArms(o.AllArms); err != nil {
				return s, &SettingsError{err}
			}
		}
		s.Header.Repo, s.Header.Artifact = o.Repo, o.Artifact
		s.Header.Shard = o.Shard
		s.Header.Recipe, s.Header.RecipeSet = o.Recipe, o.RecipeSet
		if anyGit(o.armList()) {
			s.Header.Cache = o.Cache
		}
		if err := probeMetric(ctx, s.Header, o.Exe); err != nil {
			return s, &SettingsError{err}
		}
		if warm := o.Config.Block - o.Config.Cold; warm <= 1 {
			fmt.Fprintf(o.Warn, "warning: --block %d with --cold %d keeps %d warm pass per block and process: "+
				"a block's statistic is then one pass; use --block %d or more\n", o.Config.Block, o.Config.Cold, warm, o.Config.Cold+3)
		}
	}
	if s.dirLock, err = lockBlockDir(s.BlockDir); err != nil {
		return s, err
	}
	dirs := make([]string, len(s.Header.ArmList()))
	for i := range dirs {
		dirs[i] = o.Dir
	}
	if err := s.worktrees(ctx, dirs); err != nil {
		return s, err
	}
	if !o.Resume {
		// The header is on disk before any block runs: a campaign
		// killed in its first block leaves a journal to --resume.
		if s.w, err = journal.CreateJournal(o.Journal); err != nil {
			return s, err
		}
		if err := s.w.Append(s.Header); err != nil {
			return s, err
		}
	}
	for _, m := range env.Preflight() {
		fmt.Fprintf(o.Warn, "noise: %s\n", m)
	}
	s.runners = make([]runtimeharness.Runner, len(dirs))
	for i, a := range s.Header.ArmList() {
		if s.runners[i], err = armRunner(a, o.Exe, dirs[i], s.Header.Config.Records); err != nil {
			return s, err
		}
	}
	return s, nil
}

// TotalBlocks is the number of blocks the campaign runs when nothing fails.
func (s *Session) TotalBlocks() int { return s.campaign().TotalBlocks() }

func (s *Session) campaign() *Campaign {
	return &Campaign{Header: s.Header, Runners: s.runners, Journal: s.w, Resumed: s.Resumed, Dir: s.BlockDir,
		Warn: s.opts.Warn, Progress: s.opts.Progress, RoundDone: s.opts.RoundDone}
}

// Run runs the campaign (see the package's Run) and closes its journal;
// what it journaled can then be read back with ReadJournal(s.Journal).
func (s *Session) Run(ctx context.Context) error {
	err := Run(ctx, s.campaign())
	if s.w != nil {
		if cerr := s.w.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("closing the journal: %w", cerr)
		}
		s.w = nil
	}
	return err
}

// Close ends the session: it closes the journal and removes its lock
// file, removes the worktrees and drops --lock. It is safe to call twice.
func (s *Session) Close() {
	// A daemon the last block started in the instant before its shell
	// ended may have left the session only after that block's sweep.
	sweep(cmp.Or[io.Writer](s.opts.Warn, io.Discard), "a block")
	if s.w != nil {
		s.w.Close()
		s.w = nil
	}
	if s.wt != nil {
		s.wt.Close()
		s.wt = nil
		if s.opts.Shard != nil {
			// A shard's cache of its own (resolve) goes with its
			// worktrees; it stays when something else is in it.
			_ = os.Remove(s.opts.Cache)
		}
	}
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
	if s.dirLock != nil {
		s.dirLock.Close()
		s.dirLock = nil
	}
}

// lockBlockDir creates a campaign's block directory and takes an flock on
// it for as long as the campaign runs: one campaign, one directory, even
// when two journals' names lead to it.
func lockBlockDir(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the block directory: %w", err)
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("locking the block directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("block directory %s is in use by another campaign; name another --journal", dir)
		}
		return nil, fmt.Errorf("locking the block directory: %w", err)
	}
	return f, nil
}

// worktrees checks the git arms out and builds them, before any block
// runs: one worktree per commit, reused when a killed run of the campaign
// left it, then removes what earlier killed runs left behind. dirs gets
// each git arm's working directory.
func (s *Session) worktrees(ctx context.Context, dirs []string) error {
	h, o := &s.Header, s.opts
	if !anyGit(h.ArmList()) {
		return nil
	}
	if changes := RepoChanges(h.Repo, s.Journal, journal.LockPath(s.Journal), s.BlockDir); len(changes) > 0 {
		fmt.Fprintf(o.Warn, "%s has uncommitted changes; they are not measured: the arms are base %s and head %s; uncommitted: %s\n",
			h.Repo, h.Arms[journal.Base].Label(), h.Arms[journal.Head].Label(), listSome(changes, 8))
	}
	s.wt = NewWorktrees(h.Repo, o.Cache)
	for i, a := range h.ArmList() {
		if a.Kind != journal.KindGit {
			continue
		}
		path, err := s.wt.Ensure(ctx, a.Sha)
		if err != nil {
			return err
		}
		if err := s.wt.Build(ctx, path, a.Sha, a.Build, h.Env.Toolchain, a.Env, o.Warn); err != nil {
			return err
		}
		dirs[i] = path
		if h.Artifact != "" && !o.Resume && i < len(h.ArtifactHashes) {
			hash, err := HashArtifacts(path, h.Artifact)
			if err != nil {
				return err
			}
			if hash == "" {
				fmt.Fprintf(o.Warn, "--artifact %q matches no file in the %s worktree\n", h.Artifact, journal.ArmName(i))
			}
			h.ArtifactHashes[i] = hash
		}
	}
	if removed, _ := s.wt.CleanStale(); len(removed) > 0 {
		fmt.Fprintf(o.Warn, "removed %d worktree(s) a killed campaign left: %s\n", len(removed), strings.Join(removed, ", "))
	}
	return nil
}

// listSome joins the first n items, and says how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// buildOf returns the build command of the git arms, "" when none.
func buildOf(arms []journal.Arm) string {
	for _, a := range arms {
		if a.Kind == journal.KindGit && a.Build != "" {
			return a.Build
		}
	}
	return ""
}

func randomSeed() uint64 {
	var b [8]byte
	if _, err := crand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:])
}

// extends reports whether a resume adds rounds: --rounds given, above the
// journal's.
func (o *Options) extends(h journal.Header) bool {
	_, given := o.Given["rounds"]
	return o.Resume && given && o.Config.Rounds > h.Config.Rounds
}

// sameArm reports whether arm g, given again to resume, is the journal's
// arm j. A git arm is its ref and commit, and its build, run and env
// only when they are given again: a resume does not read the recipe that
// may have set them, so the first command line given again is accepted.
func (o *Options) sameArm(j, g journal.Arm) bool {
	if j.Kind == journal.KindGit && g.Kind == journal.KindGit {
		given := func(name string) bool { _, ok := o.Given[name]; return ok }
		if !given("build") {
			g.Build = j.Build
		}
		if !given("run") {
			g.Run = j.Run
		}
		if !given("env") {
			g.Env = j.Env
		}
	}
	return j.Equal(g)
}

// finished reports whether a campaign has nothing left to run: its
// warm-ups and rounds are all journaled, or a look decided it.
func finished(j *journal.Journal) bool {
	if analysis.DecidedLook(j.Looks) != nil {
		return true
	}
	h, cfg := j.History(), j.Header.Config
	for _, name := range j.Header.ArmNames() {
		if h.WarmupsDone(name) < cfg.Warmup {
			return false
		}
	}
	for i := 1; i <= cfg.Rounds; i++ {
		if h.DoneRound(i) == nil {
			return false
		}
	}
	return true
}

// checkResume refuses to resume a journal of another campaign: a flag
// given now that disagrees with the journal's config or arms, or a host
// whose must-match facts changed.
func (o *Options) checkResume(h journal.Header, env journal.Env) error {
	var diffs []string
	cfg := o.Config
	given := func(name string) bool { _, ok := o.Given[name]; return ok }
	check := func(name string, journal, now any) {
		if given(name) && fmt.Sprint(journal) != fmt.Sprint(now) {
			diffs = append(diffs, fmt.Sprintf("--%s: journal %v, given %v", name, journal, now))
		}
	}
	jc := h.Config
	if given("rounds") && cfg.Rounds < jc.Rounds {
		return &SettingsError{fmt.Errorf("--resume --rounds %d: the campaign has %d rounds, and a campaign is never shrunk: leave --rounds out to resume it, or give more to extend it; `hbgbench report` reads the rounds it has", cfg.Rounds, jc.Rounds)}
	}
	check("block", jc.Block, cfg.Block)
	check("warmup", jc.Warmup, cfg.Warmup)
	check("order", jc.Order, cfg.Order)
	check("cold", jc.Cold, cfg.Cold)
	check("keep-first", jc.Cold, cfg.Cold)
	check("per-rank", jc.PerRank, cfg.PerRank)
	check("metric", jc.Metric, cfg.Metric)
	check("block-stat", jc.BlockStat, cfg.BlockStat)
	check("trim", jc.Trim, cfg.Trim)
	check("margin", jc.Margin, cfg.Margin)
	check("timeout", jc.Timeout, cfg.Timeout)
	check("retries", jc.Retries, cfg.Retries)
	check("max-fail", jc.MaxFail, cfg.MaxFail)
	check("bootstrap", jc.Bootstrap, cfg.Bootstrap)
	check("cpus", jc.CPUs, cfg.CPUs)
	check("load", jc.Load, cfg.Load)
	check("load-cmd", jc.LoadCmd, cfg.LoadCmd)
	check("records", jc.Records, cfg.Records)
	check("seed", h.Schedule.Seed, o.Seed)
	diffs = append(diffs, journal.CheckShard(h.Shard, o.Shard)...)
	// A check is each arm's, and the same for all: the journal's is what
	// a resumed campaign runs, so another one given is refused.
	check("check", h.ArmList()[0].Check, o.Arms[0].Check)
	if given("check-arm") {
		ja, ga := h.ArmList(), o.armList()
		for i := range min(len(ja), len(ga)) {
			if ja[i].Check != ga[i].Check {
				name := ja[i].Name
				if name == "" {
					name = journal.ArmNames[i]
				}
				diffs = append(diffs, fmt.Sprintf("--check-arm: %s's check: journal %q, given %q", name, ja[i].Check, ga[i].Check))
			}
		}
	}
	switch {
	case given("until-decided") && jc.LookEvery == 0:
		diffs = append(diffs, "--until-decided: the journal is a fixed design")
	case given("max-rounds") && jc.LookEvery == 0:
		diffs = append(diffs, "--max-rounds: the journal is a fixed design; extend it with --rounds N")
	case given("look-every") && jc.LookEvery != cfg.LookEvery:
		diffs = append(diffs, fmt.Sprintf("--look-every: journal %d, given %d", jc.LookEvery, cfg.LookEvery))
	}
	if given("stop-within") && jc.StopWithin != cfg.StopWithin {
		diffs = append(diffs, fmt.Sprintf("--stop-within: journal %s, given %s", analysis.AbsPct(float64(jc.StopWithin)), analysis.AbsPct(float64(cfg.StopWithin))))
	}
	// "arm" is aa's ARM argument, or ab's --arm.
	if given("base") || given("head") || given("base-cmd") || given("head-cmd") || given("cmd") || given("arm") || given("sweep") || given("baseline") {
		if d := o.armsDiffer(h.ArmList(), o.armList()); d != "" {
			diffs = append(diffs, d)
		}
	}
	if !o.AA && h.Arms[0].Same(h.Arms[1]) && (given("base") || given("head")) {
		// ab may resume an aa journal only through aa's own arms.
		diffs = append(diffs, "arms: the journal is an A/A campaign")
	}
	if len(diffs) > 0 {
		return fmt.Errorf("--resume: %s is a journal of another campaign:\n  %s", o.Journal, strings.Join(diffs, "\n  "))
	}
	if d := h.Env.MustMatch(env); len(d) > 0 {
		return fmt.Errorf("--resume: this host is not the one %s was measured on:\n  %s", o.Journal, strings.Join(d, "\n  "))
	}
	return nil
}
