package trace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadPhaseRecordsSkips(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "host_phase_records.jsonl")
	lines := `{"pid": 9, "inv": 1, "clock": "host_monotonic_ns", "dropped": 0, "records": [{"phase": "args", "start_ns": 1000, "end_ns": 1100, "detail": 0, "tid": 9}]}
null
[1, 2, 3]
42
"a string"
{"pid": 9, "inv": 2, "records": {"not": "a list"}}
{"pid": 9, "inv": 3, "records": [{"phase": "args", "start_

{"pid": 9, "inv": 4, "records": []}
{"pid": 9, "inv": 5, "records": []} trailing
{"pid": 9, "inv": 6, "records": null}
  {"pid": 9, "inv": 7}  ` + "\r\n"
	require.NoError(t, os.WriteFile(p, []byte(lines), 0o644))
	got, err := LoadPhaseRecords([]string{p})
	require.NoError(t, err)
	var invs []string
	for _, rp := range got {
		invs = append(invs, PyStr(rp.Inv))
	}
	assert.Equal(t, []string{"1", "4", "7"}, invs)
	require.Len(t, got[0].Records, 1)
	assert.Equal(t, Pos{p, 1}, got[0].Pos)
	assert.Empty(t, got[1].Records)
	assert.Nil(t, got[2].Records)

	_, err = LoadPhaseRecords([]string{p, filepath.Join(dir, "nope.jsonl")})
	assert.EqualError(t, err, "reading "+filepath.Join(dir, "nope.jsonl")+": open "+filepath.Join(dir, "nope.jsonl")+": no such file or directory")
}

func decodeOne(t *testing.T, s string) any {
	t.Helper()
	v, ok := decodeJSONLine([]byte(s))
	require.True(t, ok, s)
	return v
}

func TestRecordPassKey(t *testing.T) {
	tests := []struct {
		pid, inv string
		wantPid  int64
		wantInv  uint64
		ok       bool
	}{
		{"9", "5", 9, 5, true},
		{"9.0", "5e0", 9, 5, true},
		{"true", "18446744073709551615", 1, 18446744073709551615, true},
		{`"9"`, "5", 0, 0, false},
		{"9", "null", 0, 0, false},
		{"9.5", "5", 0, 0, false},
		{"9", "-1", 0, 0, false},
		{"99999999999999999999", "5", 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.pid+","+tc.inv, func(t *testing.T) {
			rp := RecordPass{Pid: decodeOne(t, tc.pid), Inv: decodeOne(t, tc.inv)}
			pid, inv, ok := rp.Key()
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.wantPid, pid)
			assert.Equal(t, tc.wantInv, inv)
		})
	}
	_, _, ok := RecordPass{}.Key()
	assert.False(t, ok, "missing pid and inv")
}

func record(t *testing.T, s string) PhaseRecord {
	t.Helper()
	m, ok := decodeOne(t, s).(map[string]any)
	if !ok {
		return PhaseRecord{}
	}
	return PhaseRecord{Fields: m}
}

func TestPhaseRecordInterval(t *testing.T) {
	tests := []struct {
		name  string
		rec   string
		phase string
		start int64
		end   int64
		ok    bool
	}{
		{"integers", `{"phase": "args", "start_ns": 1000, "end_ns": 1100}`, "args", 1000, 1100, true},
		{"numeric strings", `{"phase": "args", "start_ns": " 1000 ", "end_ns": "+1_100"}`, "args", 1000, 1100, true},
		{"floats truncate", `{"phase": "args", "start_ns": 1000.9, "end_ns": -5.5}`, "args", 1000, -5, true},
		{"booleans", `{"phase": "args", "start_ns": false, "end_ns": true}`, "args", 0, 1, true},
		{"non-string phase", `{"phase": 3, "start_ns": 1, "end_ns": 2}`, "3", 1, 2, true},
		{"null phase", `{"phase": null, "start_ns": 1, "end_ns": 2}`, "None", 1, 2, true},
		{"missing end", `{"phase": "args", "start_ns": 1}`, "", 0, 0, false},
		{"missing phase", `{"start_ns": 1, "end_ns": 2}`, "", 0, 0, false},
		{"fraction string", `{"phase": "a", "start_ns": "1.5", "end_ns": 2}`, "", 0, 0, false},
		{"null start", `{"phase": "a", "start_ns": null, "end_ns": 2}`, "", 0, 0, false},
		{"list start", `{"phase": "a", "start_ns": [1], "end_ns": 2}`, "", 0, 0, false},
		{"underscore misuse", `{"phase": "a", "start_ns": "1__0", "end_ns": 2}`, "", 0, 0, false},
		{"too big", `{"phase": "a", "start_ns": 1e30, "end_ns": 2}`, "", 0, 0, false},
		{"not an object", `[1, 2]`, "", 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			phase, start, end, ok := record(t, tc.rec).Interval()
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.phase, phase)
			assert.Equal(t, tc.start, start)
			assert.Equal(t, tc.end, end)
		})
	}
}

func TestPhaseRecordTid(t *testing.T) {
	tests := []struct {
		name   string
		rec    string
		tid    int64
		worker bool
	}{
		{"no tid key", `{}`, 9, false},
		{"same tid", `{"tid": 9}`, 9, false},
		{"other tid", `{"tid": 42}`, 42, true},
		{"string tid", `{"tid": "42"}`, 42, true},
		{"zero falls back", `{"tid": 0}`, 9, false},
		{"negative falls back", `{"tid": -3}`, 9, false},
		{"null falls back", `{"tid": null}`, 9, false},
		{"garbage falls back", `{"tid": "x"}`, 9, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tid, worker := record(t, tc.rec).Tid(9)
			assert.Equal(t, tc.tid, tid)
			assert.Equal(t, tc.worker, worker)
		})
	}
}

func TestPhaseRecordDetail(t *testing.T) {
	tests := []struct {
		rec  string
		want string
	}{
		{`{}`, "0"},
		{`{"detail": null}`, "None"},
		{`{"detail": 0}`, "0"},
		{`{"detail": 0.0}`, "0.0"},
		{`{"detail": ""}`, ""},
		{`{"detail": false}`, "False"},
		{`{"detail": []}`, "[]"},
		{`{"detail": {}}`, "{}"},
		{`{"detail": 1.5}`, "1.5"},
		{`{"detail": 1e20}`, "1e+20"},
		{`{"detail": 4294967300}`, "4294967300"},
		{`{"detail": 123456789012345678901234567890}`, "123456789012345678901234567890"},
		{`{"detail": -0}`, "0"},
		{`{"detail": 1.0}`, "1.0"},
		{`{"detail": 1e16}`, "1e+16"},
		{`{"detail": 1e15}`, "1000000000000000.0"},
		{`{"detail": 0.0001}`, "0.0001"},
		{`{"detail": 0.00001}`, "1e-05"},
		{`{"detail": 1e400}`, "inf"},
		{`{"detail": true}`, "True"},
		{`{"detail": "x y"}`, "x y"},
		{`{"detail": [1, "a", null, {"k": false}]}`, `[1, 'a', None, {'k': False}]`},
		{`{"detail": ["it's"]}`, `["it's"]`},
	}
	for _, tc := range tests {
		t.Run(tc.rec, func(t *testing.T) {
			assert.Equal(t, tc.want, record(t, tc.rec).Detail())
		})
	}
}

func TestPyIntJSONNumbers(t *testing.T) {
	n, ok := PyInt(json.Number("-12"))
	assert.True(t, ok)
	assert.Equal(t, int64(-12), n)
	_, ok = PyInt(json.Number("9223372036854775808"))
	assert.False(t, ok)
	_, ok = PyInt(map[string]any{})
	assert.False(t, ok)
}

// TestLoadPhaseRecordsWarnsOfFilesWithoutPasses pins the warning for an
// --records file that is empty or not an artifact, and its absence for a
// real artifact with a torn tail.
func TestLoadPhaseRecordsWarnsOfFilesWithoutPasses(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	empty := write("empty.jsonl", "\n\n")
	random := write("random.jsonl", "\x00\x01garbage\n[STRACE] v=1 pid=1\n[1, 2]\n")
	good := write("good.jsonl", `{"pid": 1, "inv": 2, "records": []}`+"\n"+`{"pid": 1, "inv": 3, "rec`)
	passes, warns, err := LoadPhaseRecordsWarn([]string{empty, random, good})
	require.NoError(t, err)
	assert.Len(t, passes, 1)
	assert.Equal(t, []string{
		"warning: " + empty + " holds no host_phase_records pass: it is empty",
		"warning: " + random + " holds no host_phase_records pass: none of its 3 line(s) is a JSON object with a records list; is it the right file?",
	}, warns)
}

// TestAttrIntIsPythonInt pins the reference's reading of an integer
// attribute (its overlap proof): Python's int()
// applied to the parsed (percent-decoded) attribute value.
func TestAttrIntIsPythonInt(t *testing.T) {
	tests := []struct {
		raw  string // the attribute as written in the log
		want string // "" when not an integer
	}{
		{"k=12", "12"},
		{"k=-3", "-3"},
		{"k=%31%32", "12"},
		{"k=003", "3"},
		{"k=%207", "7"},
		{"k=+7", "7"},
		{"k=1_0", "10"},
		{"k=123456789012345678901234567890", "123456789012345678901234567890"},
		{"k=1.5", ""},
		{"k=0x10", ""},
		{"k=1__0", ""},
		{"k=_1", ""},
		{"k=1_", ""},
		{"k=", ""},
		{"k=%20", ""},
		{"k=+-1", ""},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			a, ok := ParseAttrs(tc.raw).Get("k")
			require.True(t, ok)
			n, ok := a.Int()
			if tc.want == "" {
				assert.False(t, ok, "got %v", n)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tc.want, n.String())
		})
	}
}
