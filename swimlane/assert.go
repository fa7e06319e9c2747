package swimlane

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// An Assertion is one parsed `--assert EXPR` of `hbgtrace gaps` and
// `hbgtrace lanes` (docs/swimlanes.md "11. Assertions"). The grammar:
//
//	expr := "no" "lane-start" "in" "gap" "(" "submit" ")"
//	      | NAME "inside" NAME
//	      | "lanes" "(" "role" "=" ROLE ")" OP INT
//	      | "every" NAME "on" ("a" | "an") ROLE "lane"
//	OP   := ">=" | "<=" | "==" | "!=" | ">" | "<"
//
// NAME is a span's last name component (graph_submit, host_orch, …);
// graph_upload also names the upload's other spellings, graph_pack and
// h2d_graph. ROLE is one of Roles.
type Assertion struct {
	Text  string
	kind  int
	a, b  string // NAME inside NAME; every NAME on ROLE; lanes(role=ROLE)
	op    string
	count int
}

const (
	assertNoLaneStart = iota
	assertInside
	assertLanes
	assertEvery
)

// An AssertError is a mistake in an assertion's text, at a 1-based
// column.
type AssertError struct {
	Text string
	Col  int
	Msg  string
}

func (e *AssertError) Error() string {
	return fmt.Sprintf("--assert %q: column %d: %s", e.Text, e.Col, e.Msg)
}

type token struct {
	s   string
	col int
}

// maxAssertLen bounds an assertion's text.
const maxAssertLen = 1000

func tokenize(s string) ([]token, *AssertError) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '(' || c == ')':
			out = append(out, token{s[i : i+1], i + 1})
			i++
		case c == '>' || c == '<' || c == '=' || c == '!':
			j := i + 1
			if j < len(s) && s[j] == '=' {
				j++
			}
			out = append(out, token{s[i:j], i + 1})
			i = j
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			out = append(out, token{s[i:j], i + 1})
			i = j
		default:
			return nil, &AssertError{s, i + 1, fmt.Sprintf("unexpected character %q", rune(c))}
		}
	}
	return out, nil
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// ParseAssertion parses one assertion; an error names the column.
func ParseAssertion(s string) (*Assertion, error) {
	if len(s) > maxAssertLen {
		return nil, &AssertError{s[:40] + "…", 1, fmt.Sprintf("longer than %d bytes", maxAssertLen)}
	}
	toks, terr := tokenize(s)
	if terr != nil {
		return nil, terr
	}
	p := &parser{text: s, toks: toks}
	a, err := p.expr()
	if err != nil {
		return nil, err
	}
	a.Text = s
	return a, nil
}

type parser struct {
	text string
	toks []token
	i    int
}

func (p *parser) fail(msg string) *AssertError {
	col := len(p.text) + 1
	if p.i < len(p.toks) {
		col = p.toks[p.i].col
	}
	return &AssertError{p.text, col, msg}
}

func (p *parser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i].s
	}
	return ""
}

func (p *parser) want(words ...string) *AssertError {
	for _, w := range words {
		if p.peek() != w {
			got := "the end"
			if p.i < len(p.toks) {
				got = strconv.Quote(p.peek())
			}
			return p.fail(fmt.Sprintf("want %q, found %s", w, got))
		}
		p.i++
	}
	return nil
}

func (p *parser) name(what string) (string, *AssertError) {
	t := p.peek()
	if t == "" || !isName(t) {
		return "", p.fail("want " + what + " (a span name such as host_orch)")
	}
	p.i++
	return t, nil
}

func isName(t string) bool {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return t != ""
}

func (p *parser) role() (string, *AssertError) {
	t := p.peek()
	for _, r := range Roles {
		if t == r {
			p.i++
			return t, nil
		}
	}
	return "", p.fail("want a role: " + strings.Join(Roles, ", "))
}

func (p *parser) end() *AssertError {
	if p.i < len(p.toks) {
		return p.fail(fmt.Sprintf("unexpected %q after the assertion", p.peek()))
	}
	return nil
}

func (p *parser) expr() (*Assertion, error) {
	switch p.peek() {
	case "":
		return nil, p.fail("empty assertion: want one of 'no lane-start in gap(submit)', 'A inside B', 'lanes(role=R) >= N', 'every A on a R lane'")
	case "no":
		p.i++
		if err := p.want("lane-start", "in", "gap", "(", "submit", ")"); err != nil {
			return nil, err
		}
		if err := p.end(); err != nil {
			return nil, err
		}
		return &Assertion{kind: assertNoLaneStart}, nil
	case "lanes":
		p.i++
		if err := p.want("(", "role", "="); err != nil {
			return nil, err
		}
		r, err := p.role()
		if err != nil {
			return nil, err
		}
		if err := p.want(")"); err != nil {
			return nil, err
		}
		op := p.peek()
		switch op {
		case ">=", "<=", "==", "!=", ">", "<":
			p.i++
		default:
			return nil, p.fail("want a comparison: >=, <=, ==, !=, > or <")
		}
		n, cerr := strconv.Atoi(p.peek())
		if cerr != nil || n < 0 || n > 1<<20 {
			return nil, p.fail("want a count from 0 to 1048576")
		}
		p.i++
		if err := p.end(); err != nil {
			return nil, err
		}
		return &Assertion{kind: assertLanes, a: r, op: op, count: n}, nil
	case "every":
		p.i++
		n, err := p.name("a span name")
		if err != nil {
			return nil, err
		}
		if err := p.want("on"); err != nil {
			return nil, err
		}
		if p.peek() != "a" && p.peek() != "an" {
			return nil, p.fail(`want "a" or "an"`)
		}
		p.i++
		r, err := p.role()
		if err != nil {
			return nil, err
		}
		if err := p.want("lane"); err != nil {
			return nil, err
		}
		if err := p.end(); err != nil {
			return nil, err
		}
		return &Assertion{kind: assertEvery, a: n, b: r}, nil
	}
	a, err := p.name("a span name or one of no, lanes, every")
	if err != nil {
		return nil, err
	}
	if err := p.want("inside"); err != nil {
		return nil, err
	}
	b, err := p.name("a span name")
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return &Assertion{kind: assertInside, a: a, b: b}, nil
}

// nameMatches reports whether a span's name matches an assertion's NAME.
func nameMatches(spanName, want string) bool {
	leaf := leafName(spanName)
	if leaf == want {
		return true
	}
	return want == "graph_upload" && (leaf == "graph_pack" || leaf == "h2d_graph")
}

// A Failure is one way an assertion does not hold: the bind (or process)
// it is about and what was found, with times in µs from the bind's first
// span.
type Failure struct {
	Where string `json:"where"`
	What  string `json:"what"`
}

// maxFailures bounds the failures listed per assertion; Check counts the
// rest in a last one.
const maxFailures = 20

// Check evaluates the assertion on the swimlane and its lane report
// (sw.Lanes with the same options), returning its failures: none when it
// holds.
func (a *Assertion) Check(sw *Swimlane, rep *LaneReport, round func(int64, uint64) (int, bool)) []Failure {
	label := func(pid int64, inv uint64) string {
		var r *int
		if round != nil {
			if n, ok := round(pid, inv); ok {
				r = &n
			}
		}
		return bindLabel(pid, inv, r)
	}
	// The start of each bind: its earliest span.
	start := make(map[invKey]int64)
	for i := range sw.hosts {
		s := sw.hosts[i].span
		k := invKey{s.Pid, s.Inv}
		if t, ok := start[k]; !ok || s.Ts < t {
			start[k] = s.Ts
		}
	}
	rel := func(k invKey, t int64) string { return us(t - start[k]) }
	var out []Failure
	switch a.kind {
	case assertNoLaneStart:
		if len(rep.Gaps) == 0 {
			return []Failure{{"log", "no graph_submit records: gap(submit) needs host_phase_records.jsonl"}}
		}
		first := map[int64]uint64{}
		for _, g := range rep.Gaps {
			if f, ok := first[g.Pid]; !ok || g.Inv < f {
				first[g.Pid] = g.Inv
			}
		}
		for _, g := range rep.Gaps {
			k := invKey{g.Pid, g.Inv}
			if g.Inv == first[g.Pid] {
				continue // ColdBirths: the first bind's cannot be told apart
			}
			for _, p := range g.Gaps {
				if len(p.Created) == 0 {
					continue
				}
				out = append(out, Failure{g.Label(), fmt.Sprintf(
					"gap(submit) after graph_submit #%d [+%s, +%s us] (%s us): %d lane(s) start inside: %s",
					p.After, rel(k, p.Start), rel(k, p.End), us(p.Dur()), len(p.Created), LaneNames(p.Created))})
			}
		}
	case assertLanes:
		byPid := make(map[int64]int)
		for _, l := range rep.Lanes {
			if _, ok := byPid[l.Pid]; !ok {
				byPid[l.Pid] = 0
			}
			if l.Role == a.a {
				byPid[l.Pid]++
			}
		}
		pids := make([]int64, 0, len(byPid))
		for p := range byPid {
			pids = append(pids, p)
		}
		sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
		for _, p := range pids {
			if n := byPid[p]; !compare(n, a.op, a.count) {
				out = append(out, Failure{fmt.Sprintf("process pid=%d", p),
					fmt.Sprintf("%d lane(s) of role %s, want %s %d", n, a.a, a.op, a.count)})
			}
		}
		if len(pids) == 0 {
			out = append(out, Failure{"log", "no lanes"})
		}
	case assertEvery:
		role := make(map[laneKey]string, len(sw.lanes))
		for _, ln := range sw.lanes {
			role[laneKey{ln.pid, ln.id}] = roleOf(ln.name)
		}
		seen := 0
		for _, i := range sw.order {
			h := &sw.hosts[i]
			s := h.span
			if !nameMatches(s.Name, a.a) {
				continue
			}
			seen++
			if r := role[laneKey{s.Pid, h.lane}]; r != a.b {
				k := invKey{s.Pid, s.Inv}
				out = append(out, Failure{label(s.Pid, s.Inv), fmt.Sprintf(
					"%s [+%s, +%s us] is on tid %d, a lane of role %s", leafName(s.Name), rel(k, s.Ts), rel(k, s.End()), s.Tid, r)})
			}
		}
		if seen == 0 {
			out = append(out, Failure{"log", "no span named " + a.a})
		}
	case assertInside:
		type iv struct{ s, e int64 }
		outer := make(map[invKey][]iv)
		inner := make(map[invKey][]iv)
		for i := range sw.hosts {
			s := sw.hosts[i].span
			k := invKey{s.Pid, s.Inv}
			if nameMatches(s.Name, a.b) {
				outer[k] = append(outer[k], iv{s.Ts, s.End()})
			} else if nameMatches(s.Name, a.a) {
				inner[k] = append(inner[k], iv{s.Ts, s.End()})
			}
		}
		var keys []invKey
		for k := range outer {
			keys = append(keys, k)
		}
		sortInvKeys(keys)
		if len(keys) == 0 {
			out = append(out, Failure{"log", "no span named " + a.b})
		}
		for _, k := range keys {
			in := inner[k]
			if len(in) == 0 {
				out = append(out, Failure{label(k.pid, k.inv), "no span named " + a.a})
				continue
			}
			sort.Slice(in, func(i, j int) bool { return in[i].s < in[j].s })
			for _, x := range in {
				ok := false
				for _, o := range outer[k] {
					if x.s >= o.s && x.e <= o.e {
						ok = true
						break
					}
				}
				if !ok {
					o := outer[k][0]
					out = append(out, Failure{label(k.pid, k.inv), fmt.Sprintf("%s [+%s, +%s us] is not inside %s [+%s, +%s us]",
						a.a, rel(k, x.s), rel(k, x.e), a.b, rel(k, o.s), rel(k, o.e))})
				}
			}
		}
	}
	if len(out) > maxFailures {
		n := len(out) - maxFailures
		out = append(out[:maxFailures], Failure{"…", fmt.Sprintf("and %d more", n)})
	}
	return out
}

func compare(n int, op string, want int) bool {
	switch op {
	case ">=":
		return n >= want
	case "<=":
		return n <= want
	case "==":
		return n == want
	case "!=":
		return n != want
	case ">":
		return n > want
	}
	return n < want
}

func sortInvKeys(keys []invKey) {
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].pid != keys[j].pid {
			return keys[i].pid < keys[j].pid
		}
		return keys[i].inv < keys[j].inv
	})
}
