package journal

// A History is what a campaign has done, as its block and round lines
// tell it: which rounds closed and how, which attempt of a round is the
// latest, which block of each arm counts, how many warm-ups ran. The
// analysis reads one from a journal (Journal.History); a running campaign
// keeps its own, adding each line it journals. The journal itself only
// reads and writes the lines (journal.go).
type History struct {
	Blocks []BlockRecord
	Rounds []RoundRecord
	// rounds is the campaign's --rounds; unpaired marks compare's history,
	// in which every good block counts.
	rounds   int
	unpaired bool
	// names are the arms' names, base first (Header.ArmNames); nil means
	// base and head.
	names []string
}

// armNames returns the names of the history's arms, base first.
func (h *History) armNames() []string {
	if h.names == nil {
		return ArmNames[:]
	}
	return h.names
}

// A CountedBlock is a block the analysis uses, with its arm's index.
type CountedBlock struct {
	Arm   int
	Block *BlockRecord
}

// Counted returns the blocks the analysis uses, in order: for a campaign
// the counted block of each arm of each closed round, round by round (base
// first, then the other arms in their order); for compare every log, base logs first.
func (h *History) Counted() []CountedBlock {
	var out []CountedBlock
	if h.unpaired {
		for arm, name := range h.armNames() {
			for k := range h.Blocks {
				if b := &h.Blocks[k]; b.Arm == name && b.OK() {
					out = append(out, CountedBlock{arm, b})
				}
			}
		}
		return out
	}
	for i := 1; i <= h.rounds; i++ {
		for arm, name := range h.armNames() {
			if b := h.CountedBlock(i, name); b != nil {
				out = append(out, CountedBlock{arm, b})
			}
		}
	}
	return out
}

// doneRound returns the last closing record of round i, or nil.
func (h *History) DoneRound(i int) *RoundRecord {
	var out *RoundRecord
	for k := range h.Rounds {
		if h.Rounds[k].Round == i {
			out = &h.Rounds[k]
		}
	}
	return out
}

// lastAttempt returns the highest attempt any line gives round i, 0 when
// it never started.
func (h *History) LastAttempt(i int) int {
	a := 0
	for _, b := range h.Blocks {
		if b.Round == i && b.Warmup == 0 {
			a = max(a, b.Attempt)
		}
	}
	for _, r := range h.Rounds {
		if r.Round == i {
			a = max(a, r.Attempt)
		}
	}
	return a
}

// countedBlock returns the block of arm in round i that counts: the last
// good try of the attempt that closed the round ok.
func (h *History) CountedBlock(i int, arm string) *BlockRecord {
	r := h.DoneRound(i)
	if r == nil || r.Status != RoundOK {
		return nil
	}
	var out *BlockRecord
	for k := range h.Blocks {
		b := &h.Blocks[k]
		if b.Round == i && b.Warmup == 0 && b.Attempt == r.Attempt && b.Arm == arm && b.OK() {
			out = b
		}
	}
	return out
}

// warmupsDone returns how many warm-up blocks of arm counted.
func (h *History) WarmupsDone(arm string) int {
	n := 0
	for _, b := range h.Blocks {
		if b.Warmup > 0 && b.Arm == arm && b.OK() {
			n = max(n, b.Warmup)
		}
	}
	return n
}

// dropped counts the rounds closed as dropped.
func (h *History) Dropped() int {
	n := 0
	for _, r := range h.Rounds {
		if r.Status == RoundDropped {
			n++
		}
	}
	return n
}

// NewHistory returns the empty history of a campaign with header h, which
// a running campaign fills line by line.
func NewHistory(h *Header) *History {
	return &History{rounds: h.Config.Rounds, names: h.ArmNames()}
}
