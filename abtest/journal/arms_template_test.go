package journal

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestArmTemplatesCheckedAtCreation: command and git arms refuse a
// placeholder that cannot be filled in safely when they are made, before
// any block runs.
func TestArmTemplatesCheckedAtCreation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		template string
		err      string // "" when accepted
	}{
		{`./run.sh {rounds} {out}`, ""},
		{`./run.sh {rounds} "{out}"`, ""},
		{`./run.sh {rounds} x"{out}"/y`, ""},
		{`./run.sh {rounds} '{out}'`, `{out} stands inside single quotes`},
		{"./run.sh {rounds} `echo {out}`", `{out} stands inside backquotes`},
		{`./run.sh '{rounds}' {out}`, `{rounds} stands inside single quotes`},
	}
	for _, tc := range cases {
		t.Run(tc.template, func(t *testing.T) {
			_, cerr := CommandArm(tc.template)
			_, gerr := GitArm("main", "0123456789abcdef", "", tc.template, nil)
			if tc.err == "" {
				assert.NoError(t, cerr)
				assert.NoError(t, gerr)
				return
			}
			if assert.Error(t, cerr) {
				assert.Contains(t, cerr.Error(), tc.err)
				assert.Contains(t, cerr.Error(), tc.template)
			}
			if assert.Error(t, gerr) {
				assert.Contains(t, gerr.Error(), "--run: ")
				assert.Contains(t, gerr.Error(), tc.err)
			}
		})
	}
}
