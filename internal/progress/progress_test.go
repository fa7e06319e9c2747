package progress

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    Options
		n       int64
		label   string
		elapsed time.Duration
		want    string
	}{
		{"bytes of a total", Options{Program: "hbgtrace", Verb: "read", Unit: Bytes, Total: 3 << 20}, 1 << 20, "", 0,
			"hbgtrace: read 1 of 3 MB (33%)"},
		{"bytes, no total", Options{Program: "hbgtrace", Verb: "read", Unit: Bytes}, 5 << 20, "", 0,
			"hbgtrace: read 5 MB"},
		{"blocks with a label and time left", Options{Program: "hbgbench", Unit: "blocks", Total: 22}, 11, "r006-head-a1-t1",
			30 * time.Second, "hbgbench: 11 of 22 blocks (50%) r006-head-a1-t1, about 30s left"},
		{"no estimate in the first second", Options{Program: "hbgbench", Unit: "blocks", Total: 22}, 1, "w01-base-t1",
			time.Millisecond, "hbgbench: 1 of 22 blocks (4%) w01-base-t1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Text(tc.opts, tc.n, tc.label, tc.elapsed))
		})
	}
}

// TestLine: a job that outlasts After shows its line, redrawn on Set, and
// clears it; a short one shows nothing; a file is not a terminal.
func TestLine(t *testing.T) {
	var long strings.Builder
	l := StartOn(&long, Options{Program: "hbgbench", Unit: "blocks", Total: 4, After: time.Millisecond, Every: time.Millisecond})
	time.Sleep(20 * time.Millisecond)
	l.Set(2, "r001-base-a1-t1")
	l.Finish()
	assert.Contains(t, long.String(), "\rhbgbench: 2 of 4 blocks (50%) r001-base-a1-t1")
	assert.True(t, strings.HasSuffix(long.String(), "\r\x1b[K"), "the line is cleared")

	var short strings.Builder
	l = StartOn(&short, Options{Program: "x", Unit: "blocks", Total: 4, After: time.Hour})
	l.Set(1, "a")
	l.Finish()
	assert.Empty(t, short.String())

	var none *Line
	none.Set(1, "a") // a nil Line reports nothing
	none.Finish()

	f, err := os.Create(t.TempDir() + "/stderr")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, Terminal(f))
	assert.Nil(t, Start(f, Options{}))
}
