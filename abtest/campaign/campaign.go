// Package campaign runs an interleaved campaign: it resolves and checks
// the options (Open), checks out and builds git arms in worktrees, runs
// the seeded schedule block by block through a runtimeharness.Runner,
// journals each block and round, makes the looks of a sequential design,
// and resumes or extends a journal. What the blocks mean is analysis's.
package campaign

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hbgkit/hbgkit/internal/procgroup"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/hbgkit/hbgkit/trace"
)

// ErrInterrupted is returned by Run when its context was cancelled (SIGINT):
// the block in flight was killed and not journaled; what the journal holds
// can be analysed and resumed.
var ErrInterrupted = errors.New("campaign interrupted")

// An AbortError ends a campaign before its last round for a reason that
// retrying cannot mend: too many failed rounds, a stamp mismatch, a
// warm-up block that cannot run.
type AbortError struct{ Err error }

func (e *AbortError) Error() string { return "campaign aborted: " + e.Err.Error() }

func (e *AbortError) Unwrap() error { return e.Err }

// A Campaign is everything Run needs.
type Campaign struct {
	Header  journal.Header          // journaled when the campaign opened (or read back for a resumed one)
	Runners []runtimeharness.Runner // one per arm of Header.ArmList: base, head (or the other arms)
	Journal *journal.JournalWriter  // open and locked
	Resumed *journal.Journal        // the journal as read back, nil for a new campaign
	Dir     string                  // where block logs and output directories go
	Warn    io.Writer               // warnings, one line each (indented lines continue it), without the program's name
	// Progress, when set, is called after every block with the blocks done
	// and the campaign's total.
	Progress func(done, total int, label string)
	// RoundDone, when set, is called after every closed round.
	RoundDone func(r journal.RoundRecord, total int)
}

// TotalBlocks is the number of blocks a campaign runs when nothing fails.
func (c *Campaign) TotalBlocks() int {
	cfg := c.Header.Config
	n := len(c.Header.ArmList())
	return n*cfg.Warmup + n*cfg.Rounds
}

// state is what Run tracks while it runs.
type state struct {
	c       *Campaign
	h       *journal.History // what the campaign has done, this run's lines included
	seq     int
	done    int
	dropped int
	// rulerOK says the journal names the primary metric and the ruler
	// (in its header, or in a ruler line).
	rulerOK bool
	// looks are a sequential campaign's looks so far (sequential.go).
	looks []journal.LookRecord
	// checks are the arms' correctness checks so far (check.go).
	checks []journal.CheckRecord
}

// Run runs the campaign to its end, or to the first abort, or until ctx is
// cancelled. Every block is journaled (and fsync'd) as soon as it ends; a
// round is closed by a round line once both its blocks counted, or once one
// failed beyond its retries (the round is dropped). A resumed campaign
// skips the warm-ups and the rounds the journal closed, and reruns a round
// it started but did not close as a new attempt.
func Run(ctx context.Context, c *Campaign) error {
	names := c.Header.ArmNames()
	st := &state{c: c, h: journal.NewHistory(&c.Header)}
	if c.Resumed != nil {
		st.h = c.Resumed.History()
		st.seq = len(st.h.Blocks)
		st.done = c.doneBlocks(st.h)
		st.dropped = st.h.Dropped()
		st.looks = c.Resumed.Looks
		st.checks = c.Resumed.Checks
	}
	st.rulerOK = !c.Header.Primary.IsZero() && c.Header.Ruler != ""
	cfg := c.Header.Config
	if err := st.runChecks(ctx); err != nil {
		return err
	}
	for arm := range names {
		for w := st.h.WarmupsDone(names[arm]) + 1; w <= cfg.Warmup; w++ {
			b, err := st.runBlock(ctx, arm, 0, w, 1, 0)
			if err != nil {
				return err
			}
			if !b.OK() {
				return &AbortError{fmt.Errorf("warm-up block %d of %s failed after %d tries: %s (its log: %s)%s",
					w, names[arm], cfg.Retries+1, b.Error, filepath.Join(c.Dir, b.Log), st.again(b))}
			}
		}
	}
	for i := 1; i <= cfg.Rounds; i++ {
		if st.h.DoneRound(i) != nil {
			// A look a kill left unmade is made now, on the rounds up
			// to it; a journaled one is not made again.
			if stop, err := st.look(i); err != nil || stop {
				return err
			}
			continue
		}
		attempt := st.h.LastAttempt(i) + 1
		if attempt > 1 {
			fmt.Fprintf(c.Warn, "round %d was interrupted; running it again whole (attempt %d)\n", i, attempt)
		}
		rec := journal.RoundRecord{Type: journal.LineRound, Round: i, Attempt: attempt, Status: journal.RoundOK}
		var last *journal.BlockRecord // the block that dropped the round
		for pos, arm := range c.Header.Schedule.RoundOrder(i) {
			b, err := st.runBlock(ctx, arm, i, 0, attempt, pos)
			if err != nil {
				return err
			}
			if !b.OK() {
				last = b
				rec.Status = journal.RoundDropped
				rec.Reason = fmt.Sprintf("%s block failed after %d tries: %s", names[arm], cfg.Retries+1, b.Error)
				break
			}
		}
		load := journal.ReadLoad()
		rec.Load = &load
		if err := st.append(rec); err != nil {
			return err
		}
		st.h.Rounds = append(st.h.Rounds, rec)
		if c.RoundDone != nil {
			c.RoundDone(rec, cfg.Rounds)
		}
		if rec.Status == journal.RoundDropped {
			st.dropped++
			fmt.Fprintf(c.Warn, "round %d dropped: %s\n", i, rec.Reason)
			if st.dropped > cfg.MaxDropped() {
				return &AbortError{fmt.Errorf("%d of %d rounds dropped, more than --max-fail %.0f%% allows; last: %s%s",
					st.dropped, cfg.Rounds, cfg.MaxFail*100, rec.Reason, st.again(last))}
			}
		}
		if stop, err := st.look(i); err != nil || stop {
			return err
		}
	}
	return nil
}

// again is what a resumed campaign adds to the error that stops it when
// a block of the same arm failed the same way before it was resumed (the
// journal keeps every block's error): resuming only repeats such an error,
// so it says what to change. "" otherwise. Each block's own log name is
// set aside, since a rerun's differs.
func (st *state) again(b *journal.BlockRecord) string {
	if st.c.Resumed == nil || b == nil {
		return ""
	}
	cause := func(x *journal.BlockRecord) string { return strings.ReplaceAll(x.Error, x.Log, "") }
	for i := len(st.c.Resumed.Blocks) - 1; i >= 0; i-- {
		p := &st.c.Resumed.Blocks[i]
		if p.Arm == b.Arm && !p.OK() && cause(p) == cause(b) {
			return fmt.Sprintf("; the same error stopped this campaign before it was resumed (its log %s): --resume repeats it until what it names is changed (the arm's command or its output, or this host); else start a new campaign",
				filepath.Join(st.c.Dir, p.Log))
		}
	}
	return ""
}

// doneBlocks counts the blocks of a resumed campaign that the progress
// total includes: counted warm-ups and the blocks of closed rounds.
func (c *Campaign) doneBlocks(h *journal.History) int {
	n := 0
	names := c.Header.ArmNames()
	for _, name := range names {
		n += min(h.WarmupsDone(name), c.Header.Config.Warmup)
	}
	for i := 1; i <= c.Header.Config.Rounds; i++ {
		if h.DoneRound(i) != nil {
			n += len(names)
		}
	}
	return n
}

// append journals v. The first line after the primary metric and the
// ruler are known (set by the first block that counts) is the ruler line
// that names them.
func (st *state) append(v any) error {
	h := st.c.Header
	if !st.rulerOK && !h.Primary.IsZero() && h.Ruler != "" {
		if err := st.c.Journal.Append(journal.RulerRecord{Type: journal.LineRuler, Primary: h.Primary, Ruler: h.Ruler, RulerHash: h.RulerHash}); err != nil {
			return err
		}
		st.rulerOK = true
	}
	return st.c.Journal.Append(v)
}

// blockLabel names a block's log and output directory; arm is the arm's
// name (base, head, or a named arm's).
func blockLabel(arm string, round, warmup, attempt, try int) string {
	if warmup > 0 {
		return fmt.Sprintf("w%02d-%s-t%d", warmup, arm, try)
	}
	return fmt.Sprintf("r%03d-%s-a%d-t%d", round, arm, attempt, try)
}

// runBlock runs one block of arm, retrying a failed one up to the
// config's retries; it journals every try and returns the last. The error
// is for what ends the campaign: an interruption, a journal that cannot be
// written, a stamp mismatch.
func (st *state) runBlock(ctx context.Context, arm, round, warmup, attempt, pos int) (*journal.BlockRecord, error) {
	c := st.c
	cfg := c.Header.Config
	var b *journal.BlockRecord
	for try := 1; try <= cfg.Retries+1; try++ {
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		name := c.Header.ArmNames()[arm]
		label := blockLabel(name, round, warmup, attempt, try)
		st.seq++
		b = &journal.BlockRecord{Type: journal.LineBlock, Round: round, Warmup: warmup, Arm: name,
			Attempt: attempt, Try: try, Pos: pos, Seq: st.seq}
		if warmup > 0 {
			b.Attempt = 0
		}
		if err := st.execBlock(ctx, arm, label, b); err != nil {
			return nil, err
		}
		if err := st.append(b); err != nil {
			return nil, err
		}
		st.h.Blocks = append(st.h.Blocks, *b)
		if b.OK() {
			st.done++
			if c.Progress != nil {
				c.Progress(st.done, c.TotalBlocks(), label)
			}
			return b, nil
		}
		fmt.Fprintf(c.Warn, "block %s failed: %s\n", label, b.Error)
		fmt.Fprintf(c.Warn, "  its log %s%s\n", filepath.Join(c.Dir, b.Log), b.Tail)
	}
	return b, nil
}

// execBlock runs the block and fills b. A failure of the block itself is
// b.Error; the returned error ends the campaign.
func (st *state) execBlock(ctx context.Context, arm int, label string, b *journal.BlockRecord) error {
	c := st.c
	cfg := c.Header.Config
	spec := runtimeharness.BlockSpec{
		Rounds: cfg.Block, Out: filepath.Join(c.Dir, label),
		Log: filepath.Join(c.Dir, label+".log"), Timeout: cfg.Timeout, CPUs: cfg.CPUs,
		Load: loadStamp(cfg, c.Header.ArmList()[arm]),
	}
	// A block directory left by a killed try of the same label is stale.
	_ = os.RemoveAll(spec.Out)
	stopLoad, err := startLoad(cfg, c.Header.ArmList()[arm], b)
	if err != nil {
		return err
	}
	b.Start = time.Now().UTC()
	b.Log = label + ".log" + gzSuffix
	res, runErr := c.Runners[arm].Run(ctx, spec)
	stopLoad()
	sweep(c.Warn, "block "+label)
	b.WallNS = int64(res.Wall)
	b.Exit, b.Signal, b.TimedOut = res.ExitCode, int(res.Signal), res.TimedOut
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	// A block this host could not write (a full disk) is not the arm's
	// failure: the campaign stops, and --resume runs the round again.
	var local *runtimeharness.LocalError
	if errors.As(runErr, &local) {
		return fmt.Errorf("block %s: %w; that is this host's failure, not the arm's: free space, then --resume runs the round again", label, runErr)
	}
	files := metric.OutFiles(spec.Log, spec.Out)
	var bp *metric.BlockPasses
	var readErr error
	if runErr == nil {
		bp, readErr = metric.ReadBlock(files)
	}
	if runErr != nil || readErr != nil || len(bp.Passes) == 0 {
		b.Tail = logTail(spec.Log, failedTailLines)
	}
	// Keep the logs compressed, and the output directory only when the
	// block left something else in it.
	// Records past what hbgbench reads are the arm's output (as a line
	// past the reader's bound is): the block's failure. They stay as
	// written, not compressed.
	var big *metric.RecordsTooLargeError
	keep := append(files.Logs, files.Records...)
	if errors.As(readErr, &big) {
		keep = files.Logs
	}
	if err := keepLogs(keep, spec.Out); err != nil {
		return fmt.Errorf("keeping block %s's logs: %w; that is this host's failure, not the arm's: free space, then --resume runs the round again", label, err)
	}
	if runErr != nil {
		b.Error = runErr.Error()
		b.Stamp = res.Stamp
		return nil
	}
	// A line past the reader's bound is the arm's output, not this host:
	// reading it again fails the same way, so it is the block's failure
	// (retried, then counted as the arm's, as a failing command is).
	var long *trace.LineTooLongError
	if errors.As(readErr, &long) {
		b.Error = fmt.Sprintf("its log %s: line %d is longer than %d MiB, the longest line hbgbench reads; the arm's output is the cause: make the arm print shorter lines (or send that output to another file than its log and {out}/host.*.log)",
			keptName(long.File), long.Line, long.Limit>>20)
		return nil
	}
	if big != nil {
		b.Error = big.Error() + "; the arm's output is the cause: make its run write fewer records (or leave --records off)"
		return nil
	}
	// So is a log of more spans, lines or passes than a block log may
	// hold (metric.MaxBlockLogSpans, MaxBlockLogPasses).
	var many *trace.TooManySpansError
	if errors.As(readErr, &many) {
		b.Error = fmt.Sprintf("its log %s: line %d: more than %d %s, the most hbgbench holds of a block's log; the arm's output is the cause: run fewer rounds in a block (--block) or make the arm log less",
			keptName(many.Pos.File), many.Pos.Line, many.Max, many.Held())
		return nil
	}
	if readErr != nil {
		return fmt.Errorf("block %s: reading its log: %w; --resume runs the round again", label, readErr)
	}
	b.Stamp, b.Warnings = bp.Stamp, bp.Warnings
	if b.Stamp == "" {
		b.Stamp = res.Stamp
	}
	b.Passes = bp.Passes
	if len(b.Passes) == 0 {
		b.Error = fmt.Sprintf("its log %s has no passes (no chip.run span and no bind phase= line)", spec.Log+gzSuffix) + ignoredLogs(spec.Out)
		return nil
	}
	primary := c.Header.Primary
	if primary.IsZero() {
		primary = metric.ChoosePrimary(b.Passes)
	}
	// Under --per-rank, rank 0's row; a primary that names a rank has no
	// rows of ranks, and no warm pass records it.
	probe, probeText, hasRows := primary, primary.String(), true
	if cfg.PerRank {
		probe, hasRows = metric.RankKey(primary.Name, 0), !primary.Ranked
		probeText += metric.RankSep + "rank0"
	}
	var warm []float64
	if hasRows {
		warm = analysis.WarmValues(b, probe, cfg.Cold)
	}
	if len(warm) == 0 {
		b.Error = fmt.Sprintf("no warm pass recorded the primary metric %s (%d passes, %d cold)", probeText, len(b.Passes), coldCount(b.Passes, cfg.Cold))
		return nil
	}
	if c.Header.Primary.IsZero() {
		c.Header.Primary = primary
	}
	ruler := journal.Ruler(b.Stamp, c.Header.ArmList()[arm].NamingStrings(commandOf(c.Runners[arm], spec), worktreeOf(c.Runners[arm])))
	if c.Header.Ruler == "" {
		c.Header.Ruler, c.Header.RulerHash = ruler, journal.RulerHash(ruler)
	}
	if !sameRuler(c.Header.Ruler, ruler, spec.Load) {
		where := fmt.Sprintf("warm-up %d of %s", b.Warmup, b.Arm)
		if b.Warmup == 0 {
			where = fmt.Sprintf("round %d %s", b.Round, b.Arm)
		}
		b.Error = "stamp mismatch"
		if err := st.append(b); err != nil {
			return err
		}
		err := error(&journal.RulerError{Block: where, Want: c.Header.Ruler, Got: ruler})
		if again := st.again(b); again != "" {
			err = fmt.Errorf("%w\n%s", err, strings.TrimPrefix(again, "; "))
		}
		return &AbortError{err}
	}
	return nil
}

// coldCount counts the passes a block drops as cold: the first cold of
// each pid (what WarmValues leaves out).
func coldCount(ps []metric.Pass, cold int) int {
	n := 0
	for _, p := range ps {
		if p.Index < cold {
			n++
		}
	}
	return n
}

// commandOf returns the command a command runner ran for spec.
func commandOf(r runtimeharness.Runner, spec runtimeharness.BlockSpec) string {
	if cr, ok := r.(*runtimeharness.CommandRunner); ok {
		return cr.Command(spec)
	}
	return ""
}

// worktreeOf returns the directory a command runner runs in.
func worktreeOf(r runtimeharness.Runner) string {
	if cr, ok := r.(*runtimeharness.CommandRunner); ok {
		return cr.Worktree
	}
	return ""
}

// ignoredLogs names the logs a block left in its output directory under
// another name than host.*.log, which are not read: "" when there are
// none. Only host.*.log is read, so that a block's other files (a
// profile, a copy of its input) are never taken for its log.
func ignoredLogs(out string) string {
	ents, err := os.ReadDir(out)
	if err != nil {
		return ""
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if strings.Contains(n, ".log") && !(strings.HasPrefix(n, "host.") && strings.Contains(n, ".log")) {
			names = append(names, filepath.Join(out, n))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("; {out} holds %s, which is not read: hbgbench reads the block's output and {out}/host.*.log, so name it host.NAME.log", listSome(names, 4))
}

// keptName is the name a block log read at path is kept under.
func keptName(path string) string { return path + gzSuffix }

// gzSuffix ends the name of a kept block log: the trace engine reads gzip.
const gzSuffix = ".gz"

// failedTailLines is how much of a failed block's log its message shows.
const failedTailLines = 8

// logTail returns the last n lines of a log, each on its own indented
// line after " ends:", or " is empty" / " cannot be read".
func logTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return " cannot be read: " + err.Error()
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return " cannot be read: " + err.Error()
	}
	// A runaway log: only its last 64 KB are read.
	off := max(st.Size()-64<<10, 0)
	data := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(data, off); err != nil && !errors.Is(err, io.EOF) {
		return " cannot be read: " + err.Error()
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return " is empty"
	}
	lines := lastLines(string(data), n)
	for i, l := range lines {
		// A runaway line shows its start, not 64 KB of it.
		if len(l) > tailLineBytes {
			lines[i] = fmt.Sprintf("%s… (line cut: %d more bytes)", strings.ToValidUTF8(l[:tailLineBytes], ""), len(l)-tailLineBytes)
		}
	}
	return " ends:\n    | " + strings.Join(lines, "\n    | ")
}

// tailLineBytes is the most of one line a failed block's message shows.
const tailLineBytes = 200

// keepLogs replaces each log by its gzip-compressed copy (NAME.gz), then
// removes the block's output directory when nothing else is left in it. A
// file already named NAME.gz (records a run wrote compressed,
// trace.DirRecords) is kept as it is.
func keepLogs(logs []string, out string) error {
	for _, p := range logs {
		if strings.HasSuffix(p, gzSuffix) {
			continue
		}
		if err := gzipFile(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if out != "" {
		_ = os.Remove(out) // fails, and keeps it, when it is not empty
	}
	return nil
}

// gzipFile writes path+".gz" (synced) and removes path.
func gzipFile(path string) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(path+gzSuffix, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(out, gzip.BestSpeed)
	_, err = io.Copy(zw, in)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if serr := out.Sync(); err == nil {
		err = serr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path + gzSuffix)
		return err
	}
	return os.Remove(path)
}

// sweep kills what what (a block, a build) left running after it ended
// that had left its process group and session — a daemon, which the group
// kill does not reach — and says so on warn (procgroup.Sweep; hbgbench's
// main makes itself the subreaper that inherits them).
func sweep(warn io.Writer, what string) {
	gone := procgroup.Sweep()
	if len(gone) == 0 {
		return
	}
	names := make([]string, len(gone))
	for i, o := range gone {
		names[i] = o.String()
	}
	fmt.Fprintf(warn, "%s left %s running outside its process group and session (daemonised); killed: nothing a campaign starts outlives it\n", what, strings.Join(names, ", "))
}
