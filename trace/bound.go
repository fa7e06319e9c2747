package trace

// A Bound counts what a view holds, or is about to make, of a log that is
// not spans — invocations, bind passes, what a hostile invocation or pass
// adds past a real one's size — and stops at the record that goes past
// Max: the table views keep no spans, but a log of millions of
// invocations, passes or names would make them hold millions of rows.
// One Bound is shared by the collectors of one view (a Visitors.Err stops
// a streamed read there); a nil *Bound holds anything.
type Bound struct {
	// Max is the most held; 0 means no bound.
	Max int
	// What names what is held, in the error.
	What string
	n    int
	err  error
}

// Hold counts one more thing held, read at p, and reports whether it may
// be kept: false once the count has passed Max (Err says where).
func (b *Bound) Hold(p Pos) bool {
	if b == nil {
		return true
	}
	if b.err != nil {
		return false
	}
	if b.n++; b.Max > 0 && b.n > b.Max {
		b.err = &TooManySpansError{Max: b.Max, Pos: p, What: b.What}
		return false
	}
	return true
}

// Err returns the *TooManySpansError of the record that passed Max, or
// nil: a Visitors.Err.
func (b *Bound) Err() error {
	if b == nil {
		return nil
	}
	return b.err
}

// Bounds in spans, for what is not a span. A view bounded by a number of
// spans (--max-spans, a block log's bound) holds at most
// RecordValuesPerSpan JSON values of --records artifacts per span of the
// bound, and a sixteenth as many bind passes made of its lines as spans
// (orch, hbgbench's block logs): a pass costs about a kilobyte or more
// where a span costs some hundred bytes.
const (
	// RecordValuesPerSpan is what a --records artifact may hold per span
	// of the bound, in JSON values (LoadPhaseRecordsMax): a record is an
	// object of a few fields, about ten values.
	RecordValuesPerSpan = 16
	// SpansPerPass is what a bind pass counts for against a bound of
	// spans.
	SpansPerPass = 16
)

// PassesOf returns the bind passes a bound of maxSpans spans allows: 0
// (none) for 0, and at least one.
func PassesOf(maxSpans int) int {
	if maxSpans <= 0 {
		return 0
	}
	return max(1, maxSpans/SpansPerPass)
}

// BoundPasses counts in b the bind passes lines make (as GroupPasses
// groups them, a pass's lines past its 64th counting too) and returns
// b.Err: the line past the bound, or nil. Call it before the passes are
// made, so a hostile log is refused before it costs their memory.
func BoundPasses(lines []BindPhase, b *Bound) error {
	g := NewPassGrouper(func(int, Pass) {})
	g.Bound = b
	for i := range lines {
		if g.Add(&lines[i]); b.Err() != nil {
			return b.Err()
		}
	}
	return nil
}
