// Package journal is a campaign's record and its file format: the header
// (configuration, arms, seed, schedule, environment, ruler, shard), the
// block, round, look and extend lines, their append-only fsync'd writer
// and its lock, and the History a journal's lines tell. It decides
// nothing about the numbers: analysis reads a journal, campaign writes
// one. A journal of an older format is read, never rewritten.
package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"io"
	"os"
	"slices"
	"syscall"
	"time"
)

// JournalFormat is the version of the journal's line schema; a reader
// refuses a journal of a later version.
//
// Format 3 drops the header's "looks", written empty by formats 1 and 2
// (a sequential campaign's looks are look lines); a reader of format 3
// reads those journals as they are, ignoring the field. Format 2 writes
// the header when the campaign opens, before any block, and the primary
// metric and ruler the first counted block sets in a "ruler" line;
// format 1 held the header back until that block.
const JournalFormat = 3

// Kinds of journal line.
const (
	LineHeader = "header"
	LineBlock  = "block"
	LineRound  = "round"
	LineRuler  = "ruler"
	LineExtend = "extend"
)

// An ExtendRecord adds rounds to a campaign (--resume --rounds N): from
// here on it has Rounds rounds, the new ones drawn from the same schedule
// (Firsts lists the first arm of each new round, for a reader).
type ExtendRecord struct {
	Type   string   `json:"type"`
	Rounds int      `json:"rounds"`
	Firsts []string `json:"firsts"`
	// Orders are the new rounds' arm orders of a campaign of more than
	// two arms (Schedule.Orders).
	Orders [][]int `json:"orders,omitempty"`
}

// A RulerRecord completes a header written before any block counted: the
// primary metric and the ruler the first counted block set.
type RulerRecord struct {
	Type      string     `json:"type"`
	Primary   metric.Key `json:"primary"`
	Ruler     string     `json:"ruler"`
	RulerHash string     `json:"ruler_hash"`
}

// A Header is the first line of a journal: what the campaign is, so that
// it can be resumed, re-analysed, or (later) looked at while it runs and
// split across hosts. Shards is empty in a campaign's journal (a merged
// analysis fills its pooled header's); a reader ignores fields it does
// not know, such as the "looks" of formats 1 and 2.
type Header struct {
	Type    string    `json:"type"`
	Format  int       `json:"format"`
	Hbgkit  string    `json:"hbgkit"`
	Created time.Time `json:"created"`
	Command []string  `json:"command"` // argv of the run that started the campaign
	Config  Config    `json:"config"`
	Arms    [2]Arm    `json:"arms"` // base, head
	// AllArms are the arms of a campaign of more than two (--arm,
	// --sweep), base first, each named; Arms then holds the first two.
	// Absent for two arms.
	AllArms  []Arm      `json:"all_arms,omitempty"`
	Schedule Schedule   `json:"schedule"`
	Primary  metric.Key `json:"primary"` // the primary metric, chosen before the first round
	// Ruler is the first block's stamp with its arm set aside; every block
	// must match it. RulerHash is its hash, for a quick look.
	Ruler     string `json:"ruler"`
	RulerHash string `json:"ruler_hash"`
	Env       Env    `json:"env"`
	// Repo is the repository of git arms; Artifact the --artifact glob
	// and ArtifactHashes what it matched in each arm's worktree after the
	// build ("" when it matched nothing).
	Repo string `json:"repo,omitempty"`
	// Recipe is the hbgbench.toml the campaign applied, RecipeSet what it
	// set ("rounds = 8", "env K=V (git arms only)").
	Recipe    string   `json:"recipe,omitempty"`
	RecipeSet []string `json:"recipe_set,omitempty"`
	// Cache is the worktree cache of git arms, so that --resume without
	// --cache finds (and removes) the worktrees a killed run left.
	Cache          string    `json:"cache,omitempty"`
	Artifact       string    `json:"artifact,omitempty"`
	ArtifactHashes [2]string `json:"artifact_hashes,omitempty"`
	// Shards names the hosts rounds are split across; empty: this host
	// runs every round.
	Shards []string `json:"shards"`
	// Shard is the shard of a campaign split across cards and hosts
	// (--shard I/N, shard.go); nil when this journal is the whole campaign.
	Shard *ShardInfo `json:"shard,omitempty"`
}

// A BlockRecord is one block as it ran: its place in the schedule, what
// became of it, and the metrics of each of its passes.
type BlockRecord struct {
	Type    string `json:"type"`
	Round   int    `json:"round"` // 1..R; 0 for a warm-up block
	Warmup  int    `json:"warmup,omitempty"`
	Arm     string `json:"arm"`     // base, head; or the arm's name (Header.AllArms)
	Attempt int    `json:"attempt"` // attempt of the round (1, 2, ... after interruptions)
	Try     int    `json:"try"`     // try of this block within the attempt (1 + retries)
	Pos     int    `json:"pos"`     // 0, 1, ...: run first, second, ... in the round
	Seq     int    `json:"seq"`     // blocks started by the campaign so far, this one included

	Start    time.Time     `json:"start"`
	WallNS   int64         `json:"wall_ns"`
	Exit     int           `json:"exit"`
	Signal   int           `json:"signal,omitempty"`
	TimedOut bool          `json:"timed_out,omitempty"`
	Error    string        `json:"error,omitempty"` // why the block failed; "" when it counts
	Stamp    string        `json:"stamp"`
	Log      string        `json:"log"` // the kept log, in the block directory (compare: as given)
	Passes   []metric.Pass `json:"passes"`
	Warnings []string      `json:"warnings,omitempty"`
	// LoadPids are the busy processes of --load that ran beside the block
	// (Config.Load), LoadCPUNS the CPU time they consumed together: the
	// evidence that the load ran.
	LoadPids  []int `json:"load_pids,omitempty"`
	LoadCPUNS int64 `json:"load_cpu_ns,omitempty"`

	// tail is the end of a failed block's log, for its message.
	Tail string `json:"-"`
}

// OK reports whether the block counts.
func (b *BlockRecord) OK() bool { return b.Error == "" }

// A RoundRecord closes a round attempt: both its blocks counted ("ok"), or
// one failed beyond its retries and the round is dropped.
type RoundRecord struct {
	Type    string `json:"type"`
	Round   int    `json:"round"`
	Attempt int    `json:"attempt"`
	Status  string `json:"status"` // ok, dropped
	Reason  string `json:"reason,omitempty"`
	// Load is the machine's load when the round closed (absent in
	// journals from before it was recorded).
	Load *Load `json:"load,omitempty"`
}

// An Extension is a campaign's --resume --rounds N, as its extend line
// tells it: from how many planned rounds to how many, and how many rounds
// had closed when it was decided.
type Extension struct {
	From, To, After int
}

// Round statuses.
const (
	RoundOK      = "ok"
	RoundDropped = "dropped"
)

// A Journal is a campaign's journal as read back: its header, every block
// and round line in order, and the warnings reading it gave. It is the
// file format only; what the lines say the campaign has done (which rounds
// closed, which blocks count) is its History.
type Journal struct {
	Path   string
	Header Header
	Blocks []BlockRecord
	Rounds []RoundRecord
	Looks  []LookRecord // a sequential campaign's looks (sequential.go)
	// Checks are the arms' correctness checks, in order (check.go).
	Checks []CheckRecord
	// Extensions are the campaign's extend lines, in order.
	Extensions []Extension
	Warnings   []string
	// good is the length of the journal's valid prefix; a torn last line
	// lies beyond it.
	Good int64 `json:"-"`
	// unpaired marks the journal compare builds from captured logs: every
	// block counts, and Round numbers a log within its arm.
	Unpaired bool `json:"-"`
}

// extend gives the campaign rounds rounds (more than it has), the new
// ones drawn from its schedule's seed stream.
func (h *Header) Extend(rounds int) error {
	cfg := h.Config
	cfg.Rounds = rounds
	if err := cfg.Validate(); err != nil {
		return err
	}
	sched, err := NewScheduleN(h.Schedule.Order, h.Schedule.Seed, rounds, h.Schedule.Warmup, len(h.AllArms))
	if err != nil {
		return err
	}
	h.Config, h.Schedule = cfg, sched
	return nil
}

// History returns what the journal's block and round lines say the
// campaign has done (history.go).
func (j *Journal) History() *History {
	return &History{rounds: j.Header.Config.Rounds, Blocks: j.Blocks, Rounds: j.Rounds, unpaired: j.Unpaired, names: j.Header.ArmNames()}
}

// Counted returns the blocks the analysis uses (History.Counted).
func (j *Journal) Counted() []CountedBlock { return j.History().Counted() }

// ReadJournal reads a journal. A last line cut short by a crash (no
// newline, or not JSON) is ignored with a warning; a bad line elsewhere is
// an error naming its line. A line longer than MaxLineBytes is a
// *LineTooLongError: the journal is read line by line, so a hostile or
// corrupted file costs at most that much memory beyond its records.
func ReadJournal(path string) (*Journal, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading journal: %w", err)
	}
	defer f.Close()
	return readJournal(path, f, MaxLineBytes)
}

// MaxLineBytes is the longest journal line ReadJournal reads: a block line
// of 10,000 passes of 100 metrics is under 30 MB.
const MaxLineBytes = 64 << 20

// A LineTooLongError is a journal line longer than Limit bytes.
type LineTooLongError struct {
	File  string
	Line  int
	Limit int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("%s:%d: line is longer than %d MiB, the longest journal line hbgbench reads: this is not a journal hbgbench wrote", e.File, e.Line, e.Limit>>20)
}

func parseJournal(path string, data []byte) (*Journal, error) {
	return readJournal(path, bytes.NewReader(data), MaxLineBytes)
}

// readJournal reads a journal from r, one line of at most maxLine bytes
// at a time.
func readJournal(path string, r io.Reader, maxLine int) (*Journal, error) {
	j := &Journal{Path: path}
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	var off int64
	lineNo := 0
	for {
		buf = buf[:0]
		var rerr error
		for {
			var frag []byte
			frag, rerr = br.ReadSlice('\n')
			if len(buf)+len(frag) > maxLine+1 {
				return nil, &LineTooLongError{File: path, Line: lineNo + 1, Limit: maxLine}
			}
			buf = append(buf, frag...)
			if rerr != bufio.ErrBufferFull {
				break
			}
		}
		if rerr != nil && rerr != io.EOF {
			return nil, fmt.Errorf("reading journal %s: %w", path, rerr)
		}
		if len(buf) == 0 {
			break
		}
		lineNo++
		last := buf[len(buf)-1] != '\n'
		line := buf
		if !last {
			line = buf[:len(buf)-1]
		}
		err := j.addLine(line, lineNo)
		if err != nil {
			if last {
				// A crash mid-write: the line never got its newline.
				j.Warnings = append(j.Warnings, fmt.Sprintf("%s:%d: ignoring a torn last line (%d bytes): %v", path, lineNo, len(line), err))
				break
			}
			return nil, fmt.Errorf("%s:%d: %w", path, lineNo, err)
		}
		if last {
			// A complete record without its newline: keep it; the next
			// write (OpenJournal) first ends the line.
			j.Warnings = append(j.Warnings, fmt.Sprintf("%s:%d: last line has no newline", path, lineNo))
			break
		}
		off += int64(len(buf))
		j.Good = off
	}
	if lineNo == 0 || j.Header.Type != LineHeader {
		return nil, fmt.Errorf("%s: not an hbgbench journal: no header line", path)
	}
	return j, nil
}

func (j *Journal) addLine(line []byte, lineNo int) error {
	var kind struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(line, &kind); err != nil {
		return fmt.Errorf("not a JSON line: %w", err)
	}
	if lineNo == 1 && kind.Type != LineHeader {
		return fmt.Errorf("first line is a %q line, not the header", kind.Type)
	}
	switch kind.Type {
	case LineHeader:
		if lineNo != 1 {
			return errors.New("a second header line")
		}
		if err := json.Unmarshal(line, &j.Header); err != nil {
			return fmt.Errorf("header: %w", err)
		}
		if j.Header.Format > JournalFormat {
			return fmt.Errorf("journal format %d is newer than this hbgbench's %d", j.Header.Format, JournalFormat)
		}
		// The same rules as the flags: a journal edited by hand (or
		// corrupted) gives an error, never a silently wrong report.
		if err := j.Header.Config.Validate(); err != nil {
			return fmt.Errorf("header: config: %w", err)
		}
		if err := j.Header.checkArms(); err != nil {
			return fmt.Errorf("header: %w", err)
		}
		if err := j.Header.Shard.check(); err != nil {
			return fmt.Errorf("header: %w", err)
		}
	case LineBlock:
		var b BlockRecord
		if err := json.Unmarshal(line, &b); err != nil {
			return fmt.Errorf("block line: %w", err)
		}
		if !slices.Contains(j.Header.ArmNames(), b.Arm) {
			return fmt.Errorf("block line: arm %q", b.Arm)
		}
		// A counted block holds its passes (the campaign journals a block
		// without one as failed): one without would count as a round the
		// verdict cannot use, so the report's "N of N rounds" would not be
		// the verdict's N.
		// From format 2 the ruler line comes before the first counted
		// block (format 1 held it in the header): a counted block without
		// one is a journal whose ruler line was removed, which would merge
		// or resume without the ruler check.
		if b.OK() && j.Header.Format >= 2 && j.Header.Ruler == "" {
			return fmt.Errorf("block line: %s of round %d is counted, but no ruler line comes before it (format %d writes one before the first counted block): the ruler line was removed, and without it the blocks cannot be checked to be measured the same way", b.Arm, b.Round, j.Header.Format)
		}
		if b.OK() && len(b.Passes) == 0 {
			return fmt.Errorf("block line: %s of round %d has no error and no passes (\"passes\" missing, null or empty); hbgbench journals such a block as failed", b.Arm, b.Round)
		}
		j.Blocks = append(j.Blocks, b)
	case LineRound:
		var r RoundRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("round line: %w", err)
		}
		switch {
		case r.Status != RoundOK && r.Status != RoundDropped:
			return fmt.Errorf("round line: status %q: want %q or %q", r.Status, RoundOK, RoundDropped)
		case r.Round < 1 || r.Round > j.Header.Config.Rounds:
			return fmt.Errorf("round line: round %d: want 1 to %d", r.Round, j.Header.Config.Rounds)
		}
		j.Rounds = append(j.Rounds, r)
	case LineExtend:
		var e ExtendRecord
		if err := json.Unmarshal(line, &e); err != nil {
			return fmt.Errorf("extend line: %w", err)
		}
		h := &j.Header
		if e.Rounds <= h.Config.Rounds {
			return fmt.Errorf("extend line: %d rounds: want more than the %d the campaign has", e.Rounds, h.Config.Rounds)
		}
		ext := Extension{From: h.Config.Rounds, To: e.Rounds}
		closed := map[int]bool{}
		for _, r := range j.Rounds {
			if r.Status == RoundOK {
				closed[r.Round] = true
			}
		}
		ext.After = len(closed)
		if err := h.Extend(e.Rounds); err != nil {
			return fmt.Errorf("extend line: %w", err)
		}
		j.Extensions = append(j.Extensions, ext)
	case LineLook:
		var l LookRecord
		if err := json.Unmarshal(line, &l); err != nil {
			return fmt.Errorf("look line: %w", err)
		}
		if err := j.checkLook(l); err != nil {
			return fmt.Errorf("look line: %w", err)
		}
		j.Looks = append(j.Looks, l)
	case LineCheck:
		return j.addCheck(line)
	case LineRuler:
		var r RulerRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("ruler line: %w", err)
		}
		h := &j.Header
		if r.Primary == (metric.Key{}) || r.Ruler == "" {
			return errors.New("ruler line: no primary metric or no ruler")
		}
		if (h.Primary != metric.Key{} && h.Primary != r.Primary) || (h.Ruler != "" && h.Ruler != r.Ruler) {
			return fmt.Errorf("ruler line: primary %q and ruler %q contradict the header's %q and %q", r.Primary, r.Ruler, h.Primary, h.Ruler)
		}
		h.Primary, h.Ruler, h.RulerHash = r.Primary, r.Ruler, r.RulerHash
	default:
		return fmt.Errorf("unknown line type %q", kind.Type)
	}
	return nil
}

// A JournalWriter appends lines to a journal, each followed by fsync, and
// holds the journal's lock while it is open.
type JournalWriter struct {
	f        *os.File
	lock     *os.File
	lockPath string
}

// ErrJournalLocked is returned when another hbgbench holds the journal.
var ErrJournalLocked = errors.New("journal is in use by another hbgbench")

// LockPath returns the path of the lock file beside a journal.
func LockPath(journal string) string { return journal + ".lock" }

// lockJournal takes the journal's lock file (see flockFile).
func lockJournal(path string) (*os.File, error) {
	lp := LockPath(path)
	f, err := FlockFile(lp)
	var held *ErrLockHeld
	switch {
	case errors.As(err, &held):
		return nil, fmt.Errorf("%s: %w (%s: %s)", path, ErrJournalLocked, lp, held)
	case err != nil:
		return nil, fmt.Errorf("locking journal: %w", err)
	}
	return f, nil
}

// CreateJournal creates a new journal at path, which must not exist, and
// locks it.
func CreateJournal(path string) (*JournalWriter, error) {
	lock, err := lockJournal(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if errors.Is(err, os.ErrExist) && EmptyFile(path) {
		// An empty journal holds nothing to resume (an older hbgbench
		// killed before its first block): it is as good as absent.
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0)
	}
	if err != nil {
		lock.Close()
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("journal %s exists: resume it with --resume, or name another with --journal", path)
		}
		return nil, fmt.Errorf("creating journal: %w", err)
	}
	return &JournalWriter{f: f, lock: lock, lockPath: LockPath(path)}, nil
}

// emptyFile reports whether path is an empty regular file.
func EmptyFile(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Size() == 0
}

// OpenJournal locks an existing journal for appending and reads it. A torn
// last line is cut off (and reported in Journal.Warnings) so that the next
// line starts clean.
func OpenJournal(path string) (*JournalWriter, *Journal, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, nil, fmt.Errorf("reading journal: %w", err)
	}
	if EmptyFile(path) {
		return nil, nil, fmt.Errorf("journal %s is empty: its campaign was stopped before it wrote a line, so there is nothing to resume; start it again without --resume", path)
	}
	lock, err := lockJournal(path)
	if err != nil {
		return nil, nil, err
	}
	j, err := ReadJournal(path)
	if err != nil {
		lock.Close()
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		lock.Close()
		return nil, nil, fmt.Errorf("opening journal: %w", err)
	}
	st, err := f.Stat()
	if err == nil && st.Size() > j.Good {
		// Either a torn line or a last line without its newline: cut
		// the torn one; end the complete one.
		data := make([]byte, st.Size()-j.Good)
		_, _ = f.ReadAt(data, j.Good)
		if !bytes.HasSuffix(data, []byte("\n")) && json.Valid(data) {
			_, err = f.WriteAt([]byte("\n"), st.Size())
		} else {
			err = f.Truncate(j.Good)
		}
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekEnd)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		lock.Close()
		return nil, nil, fmt.Errorf("repairing journal: %w", err)
	}
	return &JournalWriter{f: f, lock: lock, lockPath: LockPath(path)}, j, nil
}

// Append writes v as one JSON line and fsyncs the journal.
func (w *JournalWriter) Append(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("writing journal: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.f.Write(b); err != nil {
		return fmt.Errorf("writing journal: %w", err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("writing journal: %w", err)
	}
	return nil
}

// Close closes the journal, removes its lock file and drops the lock.
// The file goes while the lock is still held; a process that opened it
// before and takes the lock after finds it unlinked, and opens the path
// again (flockFile), so two campaigns never both hold the journal.
func (w *JournalWriter) Close() error {
	err := w.f.Close()
	_ = os.Remove(w.lockPath)
	if lerr := w.lock.Close(); err == nil {
		err = lerr
	}
	return err
}
