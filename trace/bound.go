package trace

// A Bound counts what a view's collectors hold of a streamed log — rounds,
// bind passes, what a hostile round or pass adds past a real one's size —
// and stops the read at the record that goes past Max: the table views
// keep no spans, but a log of millions of invocations, passes or names
// would make them hold millions of rows. One Bound is shared by the
// collectors of one view; a nil *Bound holds anything.
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
