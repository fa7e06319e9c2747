package journal

import (
	"regexp"
	"slices"
	"strings"
)

// CorrectnessSwitches are the switches known to turn a check of the
// runtime's results off: an arm that carries one may be fast because it
// is wrong. docs/ab-reference.md lists them; any environment variable
// whose name contains SKIP counts as well.
var CorrectnessSwitches = []string{"--skip-golden", "SIMPLER_SKIP_TENSOR_COPY_BACK"}

// skipVar matches an environment assignment whose name contains SKIP.
var skipVar = regexp.MustCompile(`(^|[\s;&|'"(])((?:[A-Za-z_][A-Za-z0-9_]*)?SKIP[A-Za-z0-9_]*)=`)

// Switches returns the correctness-disabling switches in what the arm
// runs: its command or embedded spec, its build and run templates and its
// --env settings, each named once, in the order found.
func (a Arm) Switches() []string {
	return SwitchesIn(append([]string{a.Spec, a.Build, a.Run}, a.Env...)...)
}

// SwitchesIn returns the correctness-disabling switches in texts (an
// arm's commands and environment, or the [stamp] lines of captured
// logs), each named once, in the order found: the one place that knows
// them (CorrectnessSwitches and any *SKIP* variable).
func SwitchesIn(texts ...string) []string {
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, text := range texts {
		for _, s := range CorrectnessSwitches {
			if strings.Contains(text, s) {
				add(s)
			}
		}
		for _, m := range skipVar.FindAllStringSubmatch(text, -1) {
			add(m[2])
		}
	}
	return out
}
