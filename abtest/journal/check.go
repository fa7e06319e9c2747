package journal

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// LineCheck is the journal line of an arm's correctness check.
const LineCheck = "check"

// A CheckRecord is one run of an arm's correctness check (--check, the
// recipe's check): before the arm's first timed block, and again before
// the rounds an extension adds. Rounds is the campaign's planned rounds
// when it ran, so a resumed campaign knows whether the check of its
// current plan is done: one killed during a check has no record, and
// runs it again.
type CheckRecord struct {
	Type    string    `json:"type"`
	Arm     string    `json:"arm"`
	Command string    `json:"command"`
	Dir     string    `json:"dir"` // its working directory
	Rounds  int       `json:"rounds"`
	Start   time.Time `json:"start"`
	WallNS  int64     `json:"wall_ns"`
	Exit    int       `json:"exit"`
	Signal  int       `json:"signal,omitempty"`
	// Error says why it did not run to an exit status of its own: it
	// could not start, or it outlived --timeout.
	Error string `json:"error,omitempty"`
	// Log is its output's file, beside the block logs; Tail the last
	// lines of that output.
	Log  string   `json:"log,omitempty"`
	Tail []string `json:"tail,omitempty"`
}

// OK reports whether the check passed: exit status 0, no signal, no
// error.
func (c CheckRecord) OK() bool { return c.Exit == 0 && c.Signal == 0 && c.Error == "" }

// Status says how the check ended: "exit 1", "killed by signal 9", or
// its error.
func (c CheckRecord) Status() string {
	switch {
	case c.Error != "":
		return c.Error
	case c.Signal != 0:
		return fmt.Sprintf("killed by signal %d", c.Signal)
	}
	return fmt.Sprintf("exit %d", c.Exit)
}

// addCheck reads a check line.
func (j *Journal) addCheck(line []byte) error {
	var c CheckRecord
	if err := json.Unmarshal(line, &c); err != nil {
		return fmt.Errorf("check line: %w", err)
	}
	if !slices.Contains(j.Header.ArmNames(), c.Arm) {
		return fmt.Errorf("check line: arm %q", c.Arm)
	}
	if c.Rounds < 1 {
		return fmt.Errorf("check line: rounds %d: want 1 or more", c.Rounds)
	}
	j.Checks = append(j.Checks, c)
	return nil
}

// Checked returns the journal's check of arm for a plan of rounds
// rounds, nil when there is none.
func Checked(checks []CheckRecord, arm string, rounds int) *CheckRecord {
	for i := len(checks) - 1; i >= 0; i-- {
		if checks[i].Arm == arm && checks[i].Rounds == rounds {
			return &checks[i]
		}
	}
	return nil
}

// LastChecks returns each arm's latest check, in arm order (names).
func LastChecks(checks []CheckRecord, names []string) []CheckRecord {
	var out []CheckRecord
	for _, n := range names {
		for i := len(checks) - 1; i >= 0; i-- {
			if checks[i].Arm == n {
				out = append(out, checks[i])
				break
			}
		}
	}
	return out
}
