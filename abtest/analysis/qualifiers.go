package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
)

// qualifiers returns what qualifies a campaign's verdict, one line each,
// for a report to show above its table: the load at the start and while
// the rounds ran, failed blocks and dropped rounds, an extension decided
// after looking, and a switch in an arm that turns a correctness check
// off. Nothing when the campaign ran clean.
func qualifiers(a *Analysis, j *journal.Journal) []string {
	var out []string
	h := &j.Header
	if w := h.Env.Preflight(); len(w) > 0 {
		out = append(out, "at start: "+strings.Join(w, "; "))
	}
	if l := duringLoad(j.Rounds, h.Env.NCPU); l != "" {
		out = append(out, l)
		if p := a.PrimaryResult(); p != nil && p.Verdict.IsInconclusive() && h.Config.LookEvery == 0 && !a.AA {
			out = append(out, LoadedFixedDesign)
		}
	}
	if f, d := a.Noise.Failures, a.Noise.Dropped; f[journal.Base]+f[journal.Head] > 0 || d > 0 {
		out = append(out, fmt.Sprintf("failed blocks: base %d, head %d; rounds dropped: %d (a dropped round is left out of the analysis)", f[journal.Base], f[journal.Head], d))
	}
	for _, e := range j.Extensions {
		out = append(out, fmt.Sprintf("extended: planned %d rounds, extended to %d after %d had run (--resume --rounds); the CI and p are not adjusted for the look that decided to extend",
			e.From, e.To, e.After))
	}
	a.Switches = ArmSwitchesOf(h)
	for _, s := range a.Switches {
		out = append(out, s.Text())
	}
	return out
}

// LoadedFixedDesign qualifies an inconclusive verdict of a fixed design
// run on a loaded machine: measured, such a design finds real changes in
// too few campaigns for "inconclusive" to suggest there is none
// (docs/ab.md "The designs under load").
const LoadedFixedDesign = "under this load a fixed design misses real changes (docs/ab.md, The designs under load: on a loaded 2-core host the default found a 10% delay in at most half its campaigns, --until-decided in 70–90%), so inconclusive here does not rule a change out: run it with --until-decided, which also stops for no change, or extend it (--resume --rounds N)"

// ArmSwitches are the correctness-disabling switches one arm runs with
// (journal.Arm.Switches).
type ArmSwitches struct {
	Arm      string   `json:"arm"`
	Switches []string `json:"switches"`
	// Checked says the arm has a correctness check (--check) of its own,
	// whose outcome the report gives apart.
	Checked bool `json:"checked,omitempty"`
}

// Text says what the switches mean and what to do: run the arm with a
// correctness check (--check) and without the switch.
func (s ArmSwitches) Text() string {
	if s.Checked {
		return fmt.Sprintf("%s runs its blocks with %s, which turns a correctness check off: a faster arm may be wrong; its results are checked by its --check, apart from the timed blocks",
			s.Arm, strings.Join(s.Switches, ", "))
	}
	return fmt.Sprintf("%s runs with %s, which turns a correctness check off: a faster arm may be wrong; "+
		"give the campaign a correctness check (--check CMD, or check in hbgbench.toml) and check its results without the switch before trusting its timing",
		s.Arm, strings.Join(s.Switches, ", "))
}

// ArmSwitchesOf returns the arms of header h that run with a known
// correctness-disabling switch, in arm order.
func ArmSwitchesOf(h *journal.Header) []ArmSwitches {
	var out []ArmSwitches
	for arm, x := range h.ArmList() {
		if s := x.Switches(); len(s) > 0 {
			out = append(out, ArmSwitches{Arm: h.ArmNames()[arm], Switches: s, Checked: x.Check != ""})
		}
	}
	return out
}

// duringLoad says how loaded the machine was when the rounds closed, when
// it competed with the arms on some round (Preflight's rules: a load
// average above half the CPUs, or CPU pressure above 5%); "" otherwise.
func duringLoad(rounds []journal.RoundRecord, ncpu int) string {
	var loads, pressures []float64
	busy, n := 0, 0
	for _, r := range rounds {
		if r.Load == nil {
			continue
		}
		n++
		loads = append(loads, r.Load.Avg1)
		pressures = append(pressures, r.Load.Pressure)
		if journal.Loaded(r.Load.Avg1, ncpu) || r.Load.Pressure > journal.PressureLimit {
			busy++
		}
	}
	if busy == 0 {
		return ""
	}
	return fmt.Sprintf("during the campaign: load average %.2f to %.2f on %d CPUs and CPU pressure %.1f%% to %.1f%% when rounds closed; %d of %d rounds closed with other work competing with the arms",
		slices.Min(loads), slices.Max(loads), ncpu, slices.Min(pressures), slices.Max(pressures), busy, n)
}

// stampSwitches sets the Switches of compare's analysis a from the
// [stamp] lines of each arm's logs (the command that wrote them), and
// says them among its qualifiers: a captured log taken with
// --skip-golden is as suspect as an arm run with it.
func stampSwitches(a *Analysis) {
	for arm, logs := range a.Logs {
		var stamps []string
		for _, l := range logs {
			stamps = append(stamps, l.Stamp)
		}
		if s := journal.SwitchesIn(stamps...); len(s) > 0 {
			sw := ArmSwitches{Arm: journal.ArmNames[arm], Switches: s}
			a.Switches = append(a.Switches, sw)
			a.Qualifiers = append(a.Qualifiers, fmt.Sprintf("%s's logs were taken with %s (their [stamp] lines say so), which turns a correctness check off: a faster arm may be wrong; check its results without the switch (in a campaign, hbgbench ab --check runs such a check per arm) before trusting its timing",
				sw.Arm, strings.Join(s, ", ")))
		}
	}
}
