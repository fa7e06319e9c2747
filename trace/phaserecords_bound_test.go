package trace

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsonValues counts the values v holds: itself, and per list element and
// object member (its key and its value) theirs.
func jsonValues(v any) int {
	n := 1
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			n += jsonValues(e)
		}
	case map[string]any:
		for _, e := range x {
			n += 1 + jsonValues(e)
		}
	}
	return n
}

// FuzzJSONValuesAtMost: the count taken before decoding is never below the
// values decoded (duplicate keys decode to fewer, never more).
func FuzzJSONValuesAtMost(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"pid":1,"inv":2,"records":[{"a":"x,y:[{"},{},[1,2]]}`, `"a\"b,"`, `[[],[[]],{"":{}}]`, `{"a":1,"a":2}`, `1`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := decodeJSONLine([]byte(s))
		if !ok {
			return
		}
		if got, bound := jsonValues(v), jsonValuesAtMost([]byte(s)); got > bound {
			t.Fatalf("%q decodes to %d values, bound %d", s, got, bound)
		}
	})
}

// TestPhaseRecordsBounded: an artifact line whose values would pass the
// bound ends the read before it is decoded, naming the file, the line and
// the bound; at the bound it is read.
func TestPhaseRecordsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	line2 := `{"pid":1,"inv":1,"records":[` + strings.TrimSuffix(strings.Repeat(`{},`, 1000), ",") + "]}"
	require.NoError(t, os.WriteFile(path, []byte(`{"pid":1,"inv":0,"records":[]}`+"\n"+line2+"\n"), 0o644))
	first := jsonValuesAtMost([]byte(`{"pid":1,"inv":0,"records":[]}`))
	total := first + jsonValuesAtMost([]byte(line2))
	_, _, _, err := LoadPhaseRecordsMax([]string{path}, total-1)
	var tm *TooManySpansError
	require.True(t, errors.As(err, &tm), "%v", err)
	assert.EqualError(t, err, "reading "+path+": line 2: more than "+strconv.Itoa(total-1)+" JSON values of host_phase_records to hold in memory")
	passes, _, _, err := LoadPhaseRecordsMax([]string{path}, total)
	require.NoError(t, err)
	require.Len(t, passes, 2)
	assert.Len(t, passes[1].Records, 1000)
}
