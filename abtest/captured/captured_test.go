package captured

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestByOrder(t *testing.T) {
	t.Parallel()
	p, err := ByOrder([]string{"b1", "b2"}, []string{"h1", "h2"})
	require.NoError(t, err)
	assert.Equal(t, []string{"base", "head"}, p.Arms)
	require.Len(t, p.Rounds, 2)
	assert.Equal(t, []string{"b2"}, p.Rounds[1].Logs["base"])
	assert.Equal(t, []string{"h2"}, p.Rounds[1].Logs["head"])
	assert.Nil(t, p.Rounds[0].Order, "the order within a round is not known")
	_, err = ByOrder([]string{"b1", "b2"}, []string{"h1"})
	assert.ErrorContains(t, err, "2 base logs and 1 head logs")
}

func touch(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
	}
}

func TestByName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	touch(t, dir, "head-2.log", "base-1.log", "retained-1.rank0.log.gz", "retained-2.log", "base-2.log", "head-1.log", "notes.txt", "base-x.log")
	p, err := ByName([]string{dir})
	require.NoError(t, err)
	assert.Equal(t, []string{"base", "head", "retained"}, p.Arms, "base first, the rest by name")
	require.Len(t, p.Rounds, 2)
	assert.Equal(t, []string{filepath.Join(dir, "retained-1.rank0.log.gz")}, p.Rounds[0].Logs["retained"])

	_, err = ByName([]string{filepath.Join(dir, "notes.txt")})
	assert.ErrorContains(t, err, "notes.txt: not named ARM-ROUND.log")
	empty := t.TempDir()
	_, err = ByName([]string{empty})
	assert.ErrorContains(t, err, "no log named ARM-ROUND.log in it")
	one := t.TempDir()
	touch(t, one, "head-1.log", "head-2.log")
	_, err = ByName([]string{one})
	assert.ErrorContains(t, err, "one arm (head)")
	noBase := t.TempDir()
	touch(t, noBase, "a-1.log", "b-1.log")
	_, err = ByName([]string{noBase})
	assert.ErrorContains(t, err, "no arm is named base")
}

func TestParseManifest(t *testing.T) {
	t.Parallel()
	m := "# captured on the card\n\n1 head h 1.log  # a path with a space\n1 base /abs/b1.log\n2\tbase\tb2.log\n2 head h2.log\n2 head h2b.log\n"
	p, err := ParseManifest(strings.NewReader(m), "m.txt", "/data")
	require.NoError(t, err)
	assert.Equal(t, []string{"base", "head"}, p.Arms)
	assert.Equal(t, "manifest m.txt", p.Source)
	require.Len(t, p.Rounds, 2)
	assert.Equal(t, []string{"head", "base"}, p.Rounds[0].Order)
	assert.Equal(t, []string{"base", "head"}, p.Rounds[1].Order)
	assert.Equal(t, []string{"/data/h 1.log"}, p.Rounds[0].Logs["head"])
	assert.Equal(t, []string{"/abs/b1.log"}, p.Rounds[0].Logs["base"])
	assert.Equal(t, []string{"/data/h2.log", "/data/h2b.log"}, p.Rounds[1].Logs["head"], "several logs make one block")

	for _, tc := range []struct{ text, want string }{
		{"1 base\n", "m.txt:1: want ROUND ARM PATH"},
		{"# x\n0 base b.log\n", "m.txt:2: round \"0\": want a number from 1"},
		{"1 9x b.log\n", "m.txt:1: arm \"9x\""},
		{"\n# only comments\n", "m.txt: no ROUND ARM PATH line"},
		{"1 base b.log\n2 base b2.log\n1 head h.log\n", "round 2 has no log of head"},
		{"1 base " + strings.Repeat("x", MaxManifestLine) + "\n", "m.txt:1: a line longer than"},
	} {
		_, err := ParseManifest(strings.NewReader(tc.text), "m.txt", ".")
		assert.ErrorContains(t, err, tc.want, "%q", tc.text)
	}
}

func TestDrop(t *testing.T) {
	t.Parallel()
	p, err := ByOrder([]string{"1", "2", "3", "4"}, []string{"1", "2", "3", "4"})
	require.NoError(t, err)
	require.NoError(t, p.Drop(1, 1))
	require.Len(t, p.Rounds, 2)
	assert.Equal(t, 2, p.Rounds[0].N)
	assert.ErrorContains(t, p.Drop(1, 1), "leave none of the 2 rounds")
	assert.ErrorContains(t, p.Drop(-1, 0), "want 0 or more")
}

func TestPlanOfTakesOneWay(t *testing.T) {
	t.Parallel()
	_, err := PlanOf(Sources{Base: []string{"b"}, Head: []string{"h"}, Manifest: "m"})
	assert.ErrorContains(t, err, "--paired takes one of")
	_, err = PlanOf(Sources{})
	assert.ErrorContains(t, err, "--paired takes one of")
	_, err = PlanOf(Sources{Manifest: filepath.Join(t.TempDir(), "missing.txt")})
	assert.ErrorContains(t, err, "missing.txt")
}

// FuzzParseManifest: any manifest either parses into a plan whose every
// round has a log of every arm, or is refused with an error; never a
// panic.
func FuzzParseManifest(f *testing.F) {
	f.Add("1 base b.log\n1 head h.log\n")
	f.Add("# c\n2 head h 2.log\n2 base b.log # x\n")
	f.Add("1 base\n")
	f.Add("99999999999999999999 base b\n")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ParseManifest(strings.NewReader(text), "m", "/d")
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, len(p.Arms), 2)
		assert.Equal(t, "base", p.Arms[0])
		for _, r := range p.Rounds {
			for _, a := range p.Arms {
				assert.NotEmpty(t, r.Logs[a])
			}
		}
	})
}

// FuzzName: the name pattern never panics, and a name it takes has an
// arm and a round from 1.
func FuzzName(f *testing.F) {
	f.Add("base-1.log")
	f.Add("head-12.rank0.log.gz")
	f.Add("x-0.log")
	f.Fuzz(func(t *testing.T, name string) {
		m := nameRE.FindStringSubmatch(name)
		if m == nil {
			return
		}
		assert.NotEmpty(t, m[1])
		assert.NotEmpty(t, m[2])
	})
}
