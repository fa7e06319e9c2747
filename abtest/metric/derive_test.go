package metric

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseDerivation: the forms --derive takes, the kinds that follow
// from the operands, and errors that name the column.
func TestParseDerivation(t *testing.T) {
	t.Parallel()
	ok := []struct {
		text, name string
		kind       MetricKind
		operands   []string
	}{
		{"bind_minus_args=Bind - phase.args", "bind_minus_args", KindTime, []string{"Bind", "phase.args"}},
		{"x = bind - args", "x", KindTime, []string{"Bind", "Args"}},
		{"per_upload=work.graph_upload.bytes / work.graph_upload.submissions", "per_upload", KindBytes, []string{"work.graph_upload.bytes", "work.graph_upload.submissions"}},
		{"share=HostOrch/ControlPlane", "share", KindCount, []string{"HostOrch", "ControlPlane"}},
		{"cpu_left=(ControlPlane - cpu.ControlPlane) * 2", "cpu_left", KindTime, []string{"ControlPlane", "cpu.ControlPlane"}},
		{"open=attr.host_orch.hblkhd - 4096", "open", KindCount, []string{"attr.host_orch.hblkhd"}},
	}
	for _, tc := range ok {
		d, err := ParseDerivation(tc.text)
		require.NoError(t, err, tc.text)
		assert.Equal(t, tc.name, d.Name, tc.text)
		assert.Equal(t, tc.kind, d.Kind, tc.text)
		assert.Equal(t, tc.operands, d.Operands(), tc.text)
		assert.Equal(t, FamilyDerived, d.Info().Family)
	}
	bad := []struct {
		text string
		col  int
		msg  string
	}{
		{"nothing", 1, "want NAME=EXPR"},
		{"x=", 3, "the expression ends"},
		{"x=Bind -", 9, "the expression ends"},
		{"x=Bind - (phase.args", 21, "missing ')' for the '(' at column 10"},
		{"x=Bind - nosuch", 10, `"nosuch" is no metric`},
		{"x=Bind - minflt", 8, "- of a time and a count"},
		{"x=Bind $ 2", 8, `unexpected '$'`},
		{"x=Bind)", 7, `unexpected ')'`},
		{"Host=Bind", 1, "Host is a metric already"},
		{"a b=Bind", 1, "is not letters"},
		{"x=1.2.3", 3, `"1.2.3" is not a number`},
		{"x=HostOrch@rank1", 11, "unexpected '@'"},
	}
	for _, tc := range bad {
		_, err := ParseDerivation(tc.text)
		var de *DeriveError
		require.True(t, errors.As(err, &de), "%s: %v", tc.text, err)
		assert.Equal(t, tc.col, de.Pos+1, "%s: %v", tc.text, err)
		assert.Contains(t, err.Error(), tc.msg, tc.text)
		assert.Contains(t, err.Error(), "--derive ", tc.text)
	}
	_, err := ParseDerivations([]string{"x=Bind", "x=Host"})
	assert.ErrorContains(t, err, "x is derived twice")
}

// TestDerivationEval: a pass that lacks an operand or divides by 0 has
// no derived value; WithDerived does not change its input.
func TestDerivationEval(t *testing.T) {
	t.Parallel()
	d, err := ParseDerivation("r=(Bind - phase.args) / work.graph_upload.submissions")
	require.NoError(t, err)
	v, ok := d.Eval(map[string]float64{"Bind": 1000, "phase.args": 200, "work.graph_upload.submissions": 4})
	assert.True(t, ok)
	assert.Equal(t, 200.0, v)
	_, ok = d.Eval(map[string]float64{"Bind": 1000, "work.graph_upload.submissions": 4})
	assert.False(t, ok, "a missing operand: missing, not 0")
	_, ok = d.Eval(map[string]float64{"Bind": 1000, "phase.args": 200, "work.graph_upload.submissions": 0})
	assert.False(t, ok, "a division by 0")

	in := []Pass{{Values: map[string]float64{"Bind": 1000, "phase.args": 200, "work.graph_upload.submissions": 4}}, {Values: map[string]float64{"Bind": 5}}}
	out := WithDerived(in, []Derivation{d})
	assert.Equal(t, 200.0, out[0].Values["r"])
	assert.NotContains(t, out[1].Values, "r")
	assert.NotContains(t, in[0].Values, "r", "the input is not changed")
}

// FuzzParseDerivation: any text parses or fails with a position inside
// it, never panics; what parses evaluates to a finite value or none.
func FuzzParseDerivation(f *testing.F) {
	for _, s := range []string{"x=Bind - phase.args", "y=(a", "z=((((Bind))))/2", "w=work.args.bytes/work.args.ntensor*3",
		"=", "x=1/0", "x=Bind--Bind", "q=" + string(make([]byte, 60))} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDerivation(s)
		if err != nil {
			var de *DeriveError
			if !errors.As(err, &de) || de.Pos < 0 || de.Pos > len(s) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		vals := map[string]float64{}
		for i, n := range d.Operands() {
			vals[n] = float64(i)
		}
		if v, ok := d.Eval(vals); ok && (math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("%q: %v", s, v)
		}
	})
}
