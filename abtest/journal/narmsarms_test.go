package journal

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScheduleN: two arms keep NewSchedule's schedule; more draw a
// permutation per round from the round's stream, the same for the same
// seed, and a longer schedule of the same seed begins with a shorter one.
func TestScheduleN(t *testing.T) {
	t.Parallel()
	two, err := NewScheduleN(OrderRMIT, 9, 8, 1, 2)
	require.NoError(t, err)
	want, err := NewSchedule(OrderRMIT, 9, 8, 1)
	require.NoError(t, err)
	assert.Equal(t, want, two)

	s, err := NewScheduleN(OrderRMIT, 9, 40, 1, 4)
	require.NoError(t, err)
	assert.Equal(t, 4, s.Arms)
	assert.Empty(t, s.Firsts)
	require.Len(t, s.Orders, 40)
	firsts := map[int]bool{}
	for i, o := range s.Orders {
		assert.ElementsMatch(t, []int{0, 1, 2, 3}, o, "round %d", i+1)
		assert.Equal(t, o, s.RoundOrder(i+1))
		firsts[o[0]] = true
	}
	assert.Len(t, firsts, 4, "every arm runs first in some round of 40")
	short, err := NewScheduleN(OrderRMIT, 9, 10, 1, 4)
	require.NoError(t, err)
	assert.Equal(t, short.Orders, s.Orders[:10])
	other, err := NewScheduleN(OrderRMIT, 10, 40, 1, 4)
	require.NoError(t, err)
	assert.NotEqual(t, s.Orders, other.Orders)

	abab, err := NewScheduleN(OrderABAB, 9, 2, 0, 3)
	require.NoError(t, err)
	assert.Equal(t, [][]int{{0, 1, 2}, {0, 1, 2}}, abab.Orders)
	abba, err := NewScheduleN(OrderABBA, 9, 2, 0, 3)
	require.NoError(t, err)
	assert.Equal(t, [][]int{{0, 1, 2}, {2, 1, 0}}, abba.Orders)
}

// TestJournalNArms: a journal of three arms reads back with its arms and
// their orders; a header whose arm list cannot be read, or a block of an
// arm the header does not name, is an error naming the line.
func TestJournalNArms(t *testing.T) {
	t.Parallel()
	h := armsHeader(t, "a", "b", "c")
	line := func(v any) string { b, err := json.Marshal(v); require.NoError(t, err); return string(b) + "\n" }
	block := func(arm string) string {
		return line(BlockRecord{Type: LineBlock, Round: 1, Arm: arm, Attempt: 1, Try: 1,
			Passes: []metric.Pass{{Pid: 1, Inv: 1, Values: map[string]float64{"ControlPlane": 1}}}})
	}
	j, err := parseJournal("j", []byte(line(h)+block("c")))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, j.Header.ArmNames())
	assert.Equal(t, h.Schedule.Orders, j.Header.Schedule.Orders)

	_, err = parseJournal("j", []byte(line(h)+block("head")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `j:2: block line: arm "head"`)

	bad := map[string]func(h *Header){
		"two arms listed":  func(h *Header) { h.AllArms = h.AllArms[:2]; h.Schedule.Arms = 2 },
		"a name twice":     func(h *Header) { h.AllArms[2].Name = "a" },
		"a bad name":       func(h *Header) { h.AllArms[1].Name = "../x" },
		"schedule of 4":    func(h *Header) { h.Schedule.Arms = 4 },
		"schedule no list": func(h *Header) { h.AllArms = nil },
	}
	for name, edit := range bad {
		t.Run(name, func(t *testing.T) {
			hh := armsHeader(t, "a", "b", "c")
			edit(&hh)
			_, err := parseJournal("j", []byte(line(hh)))
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "j:1: header: "), err.Error())
		})
	}

	// A two-arm journal has no arm list; its blocks are base and head.
	old, err := ReadJournal(filepath.Join("testdata", "campaign.jsonl"))
	require.NoError(t, err)
	assert.Empty(t, old.Header.AllArms)
	assert.Equal(t, []string{"base", "head"}, old.Header.ArmNames())
}

// TestParseSweep: the values follow the last '='; names are the
// setting's last word and the value, a repeated value numbered.
func TestParseSweep(t *testing.T) {
	t.Parallel()
	sw, err := ParseSweep("recorders=prewarm=0,4,8")
	require.NoError(t, err)
	assert.Equal(t, "recorders=prewarm", sw.Setting)
	assert.Equal(t, []string{"0", "4", "8"}, sw.Values)
	assert.Equal(t, []string{"prewarm-0", "prewarm-4", "prewarm-8"}, sw.Names)
	sw, err = ParseSweep("delay_us=0,0,300,0")
	require.NoError(t, err)
	assert.Equal(t, []string{"delay_us-0", "delay_us-0-2", "delay_us-300", "delay_us-0-3"}, sw.Names)
	for _, bad := range []string{"", "=1,2", "delay_us", "delay_us=1", "delay_us=1,,2", "k=" + strings.Repeat("1,", MaxArms) + "1"} {
		_, err := ParseSweep(bad)
		assert.Error(t, err, bad)
	}
}

// FuzzParseSweep: any --sweep gives arms with valid, distinct names, or
// an error; never a panic.
func FuzzParseSweep(f *testing.F) {
	for _, s := range []string{"delay_us=0,300,600", "recorders=prewarm=0,4,8", "K=a,a,a", "x=,", "=", "a=b=c=d,e", "graph_pod=deferred-pageable,eager-pinned"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sw, err := ParseSweep(s)
		if err != nil {
			return
		}
		if len(sw.Names) != len(sw.Values) || len(sw.Values) < 2 {
			t.Fatalf("%q: %d names for %d values", s, len(sw.Names), len(sw.Values))
		}
		if err := CheckArms(sweepArms(sw)); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
	})
}

// FuzzParseNamedArm: any --arm gives a valid name and a non-empty spec,
// or an error; never a panic.
func FuzzParseNamedArm(f *testing.F) {
	for _, s := range []string{"a=embedded:delay_us=5", "main=main", "x=cmd:./run.sh {rounds} {out}", "=x", "a=", "a/b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, spec, err := ParseNamedArm(s)
		if err != nil {
			return
		}
		if CheckArmName(name) != nil || strings.TrimSpace(spec) == "" {
			t.Fatalf("%q: name %q spec %q", s, name, spec)
		}
	})
}

// armsHeader is the header of a campaign of the named embedded arms.
func armsHeader(t *testing.T, names ...string) Header {
	t.Helper()
	h := testHeader(t)
	var arms []Arm
	for i, n := range names {
		a, err := ParseEmbedded("embedded:delay_us=" + string(rune('0'+i)))
		require.NoError(t, err)
		a.Name = n
		arms = append(arms, a)
	}
	require.NoError(t, h.SetArms(arms))
	return h
}

// TestShardOf: --shard and --campaign both or neither, a valid I/N, and
// no --until-decided with them.
func TestShardOf(t *testing.T) {
	t.Parallel()
	s, err := ShardOf("", "", false, 0, false)
	require.NoError(t, err)
	assert.Nil(t, s)
	for name, tc := range map[string]struct {
		spec, id string
		until    bool
		want     string
	}{
		"campaign alone": {"", "c1", false, "--campaign c1: give --shard I/N as well"},
		"shard alone":    {"0/2", "", false, "--shard 0/2: give --campaign ID as well"},
		"bad spec":       {"3/2", "c1", false, "3/2"},
		"until-decided":  {"0/2", "c1", true, "--until-decided with --shard: a shard sees only its own rounds, so it would stop on 1/2 of the evidence"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ShardOf(tc.spec, tc.id, tc.until, 0, false)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	s, err = ShardOf("1/4", "c1", false, 7, true)
	require.NoError(t, err)
	assert.Equal(t, 1, s.Index)
	assert.Equal(t, 4, s.Count)
	assert.Equal(t, "c1", s.Campaign)
}
