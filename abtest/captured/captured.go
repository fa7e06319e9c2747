// Package captured turns logs an engineer captured by hand, alternating
// the arms, into the journal of a campaign, so that they are analysed as
// paired rounds exactly as `hbgbench ab` analyses its blocks
// (`hbgbench compare --paired`, docs/ab.md "Captured logs, paired").
//
// A Plan says which logs make each arm's block of each round. It comes
// from two lists in the same order (ByOrder), from file names of the form
// ARM-ROUND[.anything].log[.gz] (ByName), or from a manifest of "round arm
// path" lines (ParseManifest). Journal reads the logs and builds the
// journal; analysis.Analyze does the rest.
package captured

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A Round is one round of captured logs.
type Round struct {
	N    int                 // as numbered by the engineer (ByOrder: 1, 2, ...)
	Logs map[string][]string // per arm name, the logs of its block, in order
	// Order is the arms in the order they ran in the round, when known
	// (a manifest's line order); nil otherwise.
	Order []string
}

// A Plan is which logs make each arm's block in each round.
type Plan struct {
	Arms   []string // arm names, the base first
	Rounds []Round  // in round order
	Source string   // how it was given: "order", "names", "manifest FILE"
}

// MaxManifestLine bounds a manifest line, MaxManifestLines its lines.
const (
	MaxManifestLine  = 64 << 10
	MaxManifestLines = 1 << 20
)

// ByOrder pairs base[i] with head[i] as round i+1, base first.
func ByOrder(base, head []string) (*Plan, error) {
	if len(base) != len(head) {
		return nil, fmt.Errorf("--paired pairs the i-th base log with the i-th head log: %d base logs and %d head logs; give as many of each (or a manifest, docs/ab.md \"Captured logs, paired\")", len(base), len(head))
	}
	p := &Plan{Arms: []string{"base", "head"}, Source: "order"}
	for i := range base {
		p.Rounds = append(p.Rounds, Round{N: i + 1, Logs: map[string][]string{"base": {base[i]}, "head": {head[i]}}})
	}
	return p, p.check()
}

// nameRE is ByName's pattern: ARM-ROUND, then anything after a dot, then
// .log or .log.gz.
var nameRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_]*)-([0-9]+)(\.[^/]*)?\.log(\.gz)?$`)

// ByName pairs logs by their names, ARM-ROUND[.anything].log[.gz]
// (base-3.log, head-3.rank0.log.gz): every log of one arm and round is
// that arm's block of that round. A directory stands for the logs in it
// that match; a file given by name that does not match is an error. The
// arm named base is the base; the others follow in name order.
func ByName(paths []string) (*Plan, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			if !nameRE.MatchString(filepath.Base(p)) {
				return nil, fmt.Errorf("%s: not named ARM-ROUND.log (base-3.log, head-3.log; docs/ab.md \"Captured logs, paired\")", p)
			}
			files = append(files, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, e := range ents {
			if !e.IsDir() && nameRE.MatchString(e.Name()) {
				files = append(files, filepath.Join(p, e.Name()))
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no log named ARM-ROUND.log in it (base-3.log, head-3.log)", p)
		}
	}
	p := &Plan{Source: "names"}
	byRound := map[int]*Round{}
	for _, f := range files {
		m := nameRE.FindStringSubmatch(filepath.Base(f))
		n, err := strconv.Atoi(m[2])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: round %q: want 1 or more", f, m[2])
		}
		add(byRound, p, n, m[1], f, false)
	}
	p.finish(byRound)
	return p, p.check()
}

// ParseManifest reads a manifest: one log per line, "ROUND ARM PATH"
// separated by spaces or tabs (PATH may hold spaces; it is the rest of
// the line), # starting a comment, blank lines ignored. A relative PATH is
// relative to the manifest's directory dir. The arm named base is the
// base; the others follow in the order they first appear. The order of a
// round's lines is the order its arms ran in. Errors name the manifest
// (name) and the line.
func ParseManifest(r io.Reader, name, dir string) (*Plan, error) {
	p := &Plan{Source: "manifest " + name}
	byRound := map[int]*Round{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxManifestLine)
	line := 0
	for sc.Scan() {
		line++
		if line > MaxManifestLines {
			return nil, fmt.Errorf("%s: more than %d lines", name, MaxManifestLines)
		}
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		f := strings.Fields(text)
		if len(f) < 3 {
			return nil, fmt.Errorf("%s:%d: want ROUND ARM PATH, got %q", name, line, text)
		}
		n, err := strconv.Atoi(f[0])
		if err != nil || n < 1 || n > MaxManifestLines {
			return nil, fmt.Errorf("%s:%d: round %q: want a number from 1", name, line, f[0])
		}
		if !armRE.MatchString(f[1]) {
			return nil, fmt.Errorf("%s:%d: arm %q: want a name of letters, digits and _ starting with a letter", name, line, f[1])
		}
		// The path is the rest of the line after the second field.
		rest := strings.TrimSpace(text[strings.Index(text, f[1])+len(f[1]):])
		if !filepath.IsAbs(rest) {
			rest = filepath.Join(dir, rest)
		}
		add(byRound, p, n, f[1], rest, true)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: a line longer than %d bytes", name, line+1, MaxManifestLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(byRound) == 0 {
		return nil, fmt.Errorf("%s: no ROUND ARM PATH line", name)
	}
	p.finish(byRound)
	return p, p.check()
}

var armRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// add puts log path into arm's block of round n.
func add(byRound map[int]*Round, p *Plan, n int, arm, path string, ordered bool) {
	r := byRound[n]
	if r == nil {
		r = &Round{N: n, Logs: map[string][]string{}}
		byRound[n] = r
	}
	if ordered && !slices.Contains(r.Order, arm) {
		r.Order = append(r.Order, arm)
	}
	r.Logs[arm] = append(r.Logs[arm], path)
	if !slices.Contains(p.Arms, arm) {
		p.Arms = append(p.Arms, arm)
	}
}

// finish orders the rounds and the arms: base first, then (by name) the
// rest in the order they came.
func (p *Plan) finish(byRound map[int]*Round) {
	for _, r := range byRound {
		for _, logs := range r.Logs {
			if p.Source == "names" {
				slices.Sort(logs)
			}
		}
		p.Rounds = append(p.Rounds, *r)
	}
	slices.SortFunc(p.Rounds, func(a, b Round) int { return a.N - b.N })
	if i := slices.Index(p.Arms, "base"); i > 0 {
		p.Arms = append([]string{"base"}, slices.Delete(p.Arms, i, i+1)...)
	}
	if p.Source == "names" {
		slices.Sort(p.Arms[1:])
	}
}

// MaxArms is the most arms a plan may have (as a campaign).
const MaxArms = 16

// check refuses a plan that cannot be analysed as paired rounds: fewer
// than two arms, no arm named base among several, or a round without a
// log of every arm.
func (p *Plan) check() error {
	switch {
	case len(p.Arms) < 2:
		return fmt.Errorf("%s: one arm (%s): a paired comparison needs two or more", p.Source, strings.Join(p.Arms, ""))
	case len(p.Arms) > MaxArms:
		return fmt.Errorf("%s: %d arms: at most %d", p.Source, len(p.Arms), MaxArms)
	case p.Arms[0] != "base":
		return fmt.Errorf("%s: no arm is named base: name the baseline's logs base (base-1.log, or \"1 base PATH\" in a manifest)", p.Source)
	}
	for _, r := range p.Rounds {
		for _, a := range p.Arms {
			if len(r.Logs[a]) == 0 {
				return fmt.Errorf("%s: round %d has no log of %s: every round needs a block of every arm (drop the round, or capture it)", p.Source, r.N, a)
			}
		}
	}
	return nil
}

// Drop removes the first first and the last last rounds: a warm-up
// and a cool-down the engineer captured but does not want counted.
func (p *Plan) Drop(first, last int) error {
	if first < 0 || last < 0 {
		return fmt.Errorf("--drop-first %d --drop-last %d: want 0 or more rounds", first, last)
	}
	if first+last >= len(p.Rounds) {
		return fmt.Errorf("--drop-first %d and --drop-last %d leave none of the %d rounds", first, last, len(p.Rounds))
	}
	p.Rounds = p.Rounds[first : len(p.Rounds)-last]
	return nil
}

// Sources are the three ways `compare --paired` is told which logs pair:
// Manifest, else Names (files named ARM-ROUND.log, or directories of
// them), else Base and Head in the same order.
type Sources struct {
	Base, Head []string
	Names      []string
	Manifest   string
	// DropFirst and DropLast rounds are left out (a warm-up and a
	// cool-down the engineer captured).
	DropFirst, DropLast int
}

// PlanOf returns the plan the sources give. Giving more than one way is an
// error.
func PlanOf(s Sources) (*Plan, error) {
	ways := 0
	for _, given := range []bool{s.Manifest != "", len(s.Names) > 0, len(s.Base)+len(s.Head) > 0} {
		if given {
			ways++
		}
	}
	if ways != 1 {
		return nil, errors.New("--paired takes one of: --manifest FILE; logs named ARM-ROUND.log (or their directory); or --base LOG... --head LOG... in the order they were captured")
	}
	var p *Plan
	var err error
	switch {
	case s.Manifest != "":
		var f *os.File
		if f, err = os.Open(s.Manifest); err != nil {
			return nil, err
		}
		defer f.Close()
		p, err = ParseManifest(f, s.Manifest, filepath.Dir(s.Manifest))
	case len(s.Names) > 0:
		p, err = ByName(s.Names)
	default:
		p, err = ByOrder(s.Base, s.Head)
	}
	if err != nil {
		return nil, err
	}
	if s.DropFirst > 0 || s.DropLast > 0 {
		err = p.Drop(s.DropFirst, s.DropLast)
	}
	return p, err
}
