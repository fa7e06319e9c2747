package metric

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Derived metrics (--derive NAME=EXPR, docs/ab-reference.md "Derived
// metrics"): a per-pass value computed from other per-pass metrics with
// + - * / and parentheses, such as bind_minus_args = Bind - phase.args or
// bytes per upload = work.graph_upload.bytes / work.graph_upload.submissions.
// A pass that lacks an operand, or divides by 0, has no value of it:
// missing, never 0. The analysis treats it as any other metric.

// FamilyDerived holds the metrics --derive defines.
const FamilyDerived = "derived"

// A Derivation is one --derive NAME=EXPR, parsed.
type Derivation struct {
	Name string // the new metric's name
	Expr string // the expression as given, trimmed
	Kind MetricKind
	root *node
}

// node is one node of a parsed expression: an operator with two
// operands, a metric (its canonical name) or a number.
type node struct {
	op          byte // '+', '-', '*', '/'; 0 for a leaf
	left, right *node
	metric      string
	num         float64
	kind        MetricKind
}

// A DeriveError is a --derive text that does not parse: Pos is the byte
// offset in the text (0 first) where it went wrong.
type DeriveError struct {
	Text string
	Pos  int
	Msg  string
}

func (e *DeriveError) Error() string {
	return fmt.Sprintf("--derive %q: at column %d: %s", e.Text, e.Pos+1, e.Msg)
}

// maxDeriveLen bounds a --derive text: an expression is a line, not a
// program.
const maxDeriveLen = 1000

// ParseDerivation parses NAME=EXPR. NAME is letters, digits, '_' and '.',
// not the name of a known metric; EXPR is metric names (as --metric takes
// them: LookupMetric, without ranks), non-negative numbers, + - * / and
// parentheses, with the usual precedence. Its kind follows from the
// operands': a sum or difference keeps the kind of its operands (time
// and CPU time mix as time), a quotient of two of one kind is a count (a
// ratio), any quantity divided or multiplied by a count keeps its kind.
func ParseDerivation(text string) (Derivation, error) {
	fail := func(pos int, format string, args ...any) (Derivation, error) {
		return Derivation{}, &DeriveError{Text: text, Pos: pos, Msg: fmt.Sprintf(format, args...)}
	}
	if len(text) > maxDeriveLen {
		return fail(maxDeriveLen, "longer than %d characters", maxDeriveLen)
	}
	eq := strings.IndexByte(text, '=')
	if eq < 0 {
		return fail(0, "want NAME=EXPR")
	}
	name := strings.TrimSpace(text[:eq])
	if !openName.MatchString(name) {
		return fail(0, "the name %q is not letters, digits, '_' and '.'", name)
	}
	if _, known := LookupMetric(name); known {
		return fail(0, "%s is a metric already; give the derived one another name", name)
	}
	p := &exprParser{text: text, pos: eq + 1}
	root, err := p.sum()
	if err != nil {
		return Derivation{}, err
	}
	p.space()
	if p.pos < len(text) {
		return fail(p.pos, "unexpected %q", text[p.pos])
	}
	return Derivation{Name: name, Expr: strings.TrimSpace(text[eq+1:]), Kind: root.kind, root: root}, nil
}

// exprParser is a recursive-descent parser over text from pos.
type exprParser struct {
	text  string
	pos   int
	depth int
}

// maxDepth bounds the nesting of parentheses.
const maxDepth = 50

func (p *exprParser) errorf(pos int, format string, args ...any) error {
	return &DeriveError{Text: p.text, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *exprParser) space() {
	for p.pos < len(p.text) && (p.text[p.pos] == ' ' || p.text[p.pos] == '\t') {
		p.pos++
	}
}

// sum := product (('+' | '-') product)*
func (p *exprParser) sum() (*node, error) {
	left, err := p.product()
	if err != nil {
		return nil, err
	}
	for {
		p.space()
		if p.pos >= len(p.text) || (p.text[p.pos] != '+' && p.text[p.pos] != '-') {
			return left, nil
		}
		op, at := p.text[p.pos], p.pos
		p.pos++
		right, err := p.product()
		if err != nil {
			return nil, err
		}
		k, ok := sumKind(left.kind, right.kind)
		if !ok {
			return nil, p.errorf(at, "%c of a %s and a %s: add or subtract quantities of one kind", op, left.kind, right.kind)
		}
		left = &node{op: op, left: left, right: right, kind: k}
	}
}

// product := operand (('*' | '/') operand)*
func (p *exprParser) product() (*node, error) {
	left, err := p.operand()
	if err != nil {
		return nil, err
	}
	for {
		p.space()
		if p.pos >= len(p.text) || (p.text[p.pos] != '*' && p.text[p.pos] != '/') {
			return left, nil
		}
		op := p.text[p.pos]
		p.pos++
		right, err := p.operand()
		if err != nil {
			return nil, err
		}
		left = &node{op: op, left: left, right: right, kind: productKind(op, left.kind, right.kind)}
	}
}

// operand := NAME | NUMBER | '(' sum ')'
func (p *exprParser) operand() (*node, error) {
	p.space()
	if p.pos >= len(p.text) {
		return nil, p.errorf(p.pos, "the expression ends where a metric, a number or '(' should be")
	}
	start := p.pos
	c := p.text[p.pos]
	switch {
	case c == '(':
		if p.depth++; p.depth > maxDepth {
			return nil, p.errorf(start, "parentheses nested deeper than %d", maxDepth)
		}
		p.pos++
		n, err := p.sum()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.text) || p.text[p.pos] != ')' {
			return nil, p.errorf(p.pos, "missing ')' for the '(' at column %d", start+1)
		}
		p.pos++
		p.depth--
		return n, nil
	case c >= '0' && c <= '9':
		for p.pos < len(p.text) && (isDigit(p.text[p.pos]) || p.text[p.pos] == '.') {
			p.pos++
		}
		v, err := strconv.ParseFloat(p.text[start:p.pos], 64)
		if err != nil || math.IsInf(v, 0) {
			return nil, p.errorf(start, "%q is not a number", p.text[start:p.pos])
		}
		return &node{num: v, kind: KindCount}, nil
	case isNameByte(c):
		for p.pos < len(p.text) && isNameByte(p.text[p.pos]) {
			p.pos++
		}
		word := p.text[start:p.pos]
		m, ok := LookupMetric(word)
		if !ok || m.Key.Ranked {
			return nil, p.errorf(start, "%q is no metric (hbgbench ab --metric list names them)", word)
		}
		return &node{metric: m.Name, kind: m.Kind}, nil
	}
	return nil, p.errorf(start, "unexpected %q where a metric, a number or '(' should be", c)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isNameByte(c byte) bool {
	return c == '_' || c == '.' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// sumKind is the kind of a sum or difference: one kind, time and CPU
// time mixing as time; false for a count and a time.
func sumKind(a, b MetricKind) (MetricKind, bool) {
	switch {
	case a == b:
		return a, true
	case (a == KindTime || a == KindCPU) && (b == KindTime || b == KindCPU):
		return KindTime, true
	}
	return "", false
}

// productKind is the kind of a product or quotient: a quantity times or
// divided by a count keeps its kind (time per operation is time); a
// ratio of two quantities is a count.
func productKind(op byte, a, b MetricKind) MetricKind {
	switch {
	case b == KindCount:
		return a
	case op == '*' && a == KindCount:
		return b
	}
	return KindCount
}

// Info returns the derived metric as the analysis and reports describe
// it: family derived, its kind, its expression as label.
func (d Derivation) Info() MetricInfo {
	return MetricInfo{Key: PooledKey(d.Name), Name: d.Name, Family: FamilyDerived, Label: d.Name + " = " + d.Expr, Kind: d.Kind}
}

// Operands returns the canonical names of the metrics the expression
// reads, each once, in the order met.
func (d Derivation) Operands() []string {
	var out []string
	seen := map[string]bool{}
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		if n.op == 0 && n.metric != "" && !seen[n.metric] {
			seen[n.metric] = true
			out = append(out, n.metric)
		}
		walk(n.left)
		walk(n.right)
	}
	walk(d.root)
	return out
}

// Eval returns the derived value of a pass's values; false when an
// operand is missing, a divisor is 0, or the result is not finite.
func (d Derivation) Eval(values map[string]float64) (float64, bool) {
	v, ok := eval(d.root, values)
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

func eval(n *node, values map[string]float64) (float64, bool) {
	if n.op == 0 {
		if n.metric == "" {
			return n.num, true
		}
		v, ok := values[n.metric]
		return v, ok
	}
	a, ok := eval(n.left, values)
	if !ok {
		return 0, false
	}
	b, ok := eval(n.right, values)
	if !ok {
		return 0, false
	}
	switch n.op {
	case '+':
		return a + b, true
	case '-':
		return a - b, true
	case '*':
		return a * b, true
	}
	if b == 0 {
		return 0, false
	}
	return a / b, true
}

// ParseDerivations parses each --derive text; two of one name are an
// error.
func ParseDerivations(texts []string) ([]Derivation, error) {
	var out []Derivation
	seen := map[string]bool{}
	for _, t := range texts {
		d, err := ParseDerivation(t)
		if err != nil {
			return nil, err
		}
		if seen[d.Name] {
			return nil, &DeriveError{Text: t, Pos: 0, Msg: fmt.Sprintf("%s is derived twice", d.Name)}
		}
		seen[d.Name] = true
		out = append(out, d)
	}
	return out, nil
}

// WithDerived returns ps with each derivation's value added to every
// pass that has its operands. The passes' Values are copied: ps is not
// changed.
func WithDerived(ps []Pass, ds []Derivation) []Pass {
	if len(ds) == 0 {
		return ps
	}
	out := make([]Pass, len(ps))
	for i, p := range ps {
		vals := make(map[string]float64, len(p.Values)+len(ds))
		for k, v := range p.Values {
			vals[k] = v
		}
		for _, d := range ds {
			if v, ok := d.Eval(vals); ok {
				vals[d.Name] = v
			}
		}
		p.Values = vals
		out[i] = p
	}
	return out
}
