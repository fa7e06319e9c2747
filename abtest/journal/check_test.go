package journal

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckLines: check lines are read in order; one naming no arm of
// the campaign, or no rounds, is an error naming the file and line; a
// journal without check lines (every journal before them) reads as it did.
func TestCheckLines(t *testing.T) {
	t.Parallel()
	header := `{"type":"header","format":3,"config":{"rounds":3,"block":5,"warmup":0,"order":"abab","block_stat":"median","trim":-1,"margin":0.01,"retries":1,"max_fail":0.1},"arms":[{"kind":"embedded","spec":"embedded:"},{"kind":"embedded","spec":"embedded:"}],"schedule":{"order":"abab","seed":1,"rounds":3,"firsts":["base","head","base"]}}`
	ok := header + "\n" +
		`{"type":"check","arm":"base","command":"true","rounds":3,"exit":0}` + "\n" +
		`{"type":"check","arm":"head","command":"./golden.sh","rounds":3,"exit":1,"tail":["differs"]}` + "\n"
	j, err := parseJournal("j.jsonl", []byte(ok))
	require.NoError(t, err)
	require.Len(t, j.Checks, 2)
	assert.True(t, j.Checks[0].OK())
	assert.False(t, j.Checks[1].OK())
	assert.Equal(t, "exit 1", j.Checks[1].Status())
	assert.Equal(t, &j.Checks[1], Checked(j.Checks, "head", 3))
	assert.Nil(t, Checked(j.Checks, "head", 4), "an extension to 4 rounds checks again")

	for _, tc := range []struct{ line, want string }{
		{`{"type":"check","arm":"other","command":"true","rounds":3}`, `j.jsonl:2: check line: arm "other"`},
		{`{"type":"check","arm":"head","command":"true","rounds":0}`, "j.jsonl:2: check line: rounds 0"},
		{`{"type":"check","arm":"head","exit":"1"}`, "j.jsonl:2: check line: json"},
	} {
		_, err := parseJournal("j.jsonl", []byte(header+"\n"+tc.line+"\n"+`{"type":"round","round":1,"attempt":1,"status":"ok"}`+"\n"))
		require.Error(t, err, tc.line)
		assert.True(t, strings.HasPrefix(err.Error(), tc.want), err.Error())
	}
}
