package analysis

import (
	"testing"

	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/stretchr/testify/assert"
)

// TestFailOnMatchesTheTypedVerdict: --fail-on reads the verdict's call,
// whatever the words of its metric's kind (docs/ab.md: slower fires on
// any increase, more bytes or more CPU as well as slower; change on any
// increase or decrease), and never a small change, an inconclusive row,
// gated or not, or a row without
func TestFailOnMatchesTheTypedVerdict(t *testing.T) {
	t.Parallel()
	kinds := []metric.MetricKind{metric.KindTime, metric.KindCPU, metric.KindCount, metric.KindBytes, ""}
	for _, k := range kinds {
		for _, c := range stats.Calls() {
			v := VerdictOf(c, k)
			t.Run(string(k)+" "+v.String(), func(t *testing.T) {
				assert.False(t, v.FailsOn(""), "no --fail-on")
				assert.Equal(t, c == stats.Slower, v.FailsOn("slower"), "--fail-on slower")
				assert.Equal(t, c == stats.Slower || c == stats.Faster, v.FailsOn("change"), "--fail-on change")
			})
		}
	}
	for _, f := range []string{"", "slower", "change"} {
		assert.False(t, NoVerdict.FailsOn(f), "n/a with --fail-on %q", f)
	}
	// The words of today's reports, read back, match as the values do.
	for word, want := range map[string][2]bool{
		"slower": {true, true}, "more": {true, true}, "more bytes": {true, true}, "more CPU": {true, true},
		"faster": {false, true}, "fewer": {false, true}, "fewer bytes": {false, true}, "less CPU": {false, true},
		"no change": {false, false}, "~ small": {false, false}, "inconclusive": {false, false}, "n/a": {false, false},
	} {
		var v Verdict
		if assert.NoError(t, v.UnmarshalText([]byte(word))) {
			assert.Equal(t, want[0], v.FailsOn("slower"), "%s with --fail-on slower", word)
			assert.Equal(t, want[1], v.FailsOn("change"), "%s with --fail-on change", word)
		}
	}
}
