package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/internal/progress"
	"github.com/hbgkit/hbgkit/runtimeharness"
)

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
	campaign.Announce(opts.Err, h, path)
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
		err := abreport.Write(opts.Out, abreport.WriteOptions{Format: opts.Format, Redact: opts.Redact, AA: opts.AA}, a, j)
		if err != nil && end.code != exitFailed {
			return err
		}
	}
	fmt.Fprint(opts.Err, end.after)
	return end.err(runErr)
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
			if (opts.FailOn == "slower" && metric.IsIncrease(p.Verdict)) ||
				(opts.FailOn == "change" && (metric.IsIncrease(p.Verdict) || metric.IsDecrease(p.Verdict))) {
				end.code = exitFailOn
				return end
			}
		}
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
