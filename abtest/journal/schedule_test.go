package journal

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScheduleOrders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		order Order
		want  []string // firsts of rounds 1..6; nil: checked separately
	}{
		{OrderABAB, []string{"base", "base", "base", "base", "base", "base"}},
		{OrderABBA, []string{"base", "head", "base", "head", "base", "head"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.order), func(t *testing.T) {
			s, err := NewSchedule(tc.order, 42, 6, 1)
			require.NoError(t, err)
			assert.Equal(t, tc.want, s.Firsts)
			for i := 1; i <= 6; i++ {
				arms := s.RoundArms(i)
				assert.ElementsMatch(t, []int{Base, Head}, arms[:])
				assert.Equal(t, s.Firsts[i-1], ArmName(arms[0]))
			}
		})
	}
}

func TestScheduleRMITIsSeededPerRound(t *testing.T) {
	t.Parallel()
	a, err := NewSchedule(OrderRMIT, 7, 200, 1)
	require.NoError(t, err)
	b, err := NewSchedule(OrderRMIT, 7, 50, 1)
	require.NoError(t, err)
	// The same seed gives the same order, and round i does not depend on
	// how many rounds come after it (a shard can draw any round alone).
	assert.Equal(t, a.Firsts[:50], b.Firsts)
	c, err := NewSchedule(OrderRMIT, 8, 200, 1)
	require.NoError(t, err)
	assert.NotEqual(t, a.Firsts, c.Firsts)
	heads := 0
	for _, f := range a.Firsts {
		if f == "head" {
			heads++
		}
	}
	// A fair coin over 200 rounds: far from all one side.
	assert.InDelta(t, 100, heads, 40)
	assert.Contains(t, a.Stream, "PCG(seed")
}

func TestScheduleRejectsUnknownOrder(t *testing.T) {
	t.Parallel()
	_, err := NewSchedule("abc", 1, 3, 0)
	assert.ErrorContains(t, err, "want rmit, abba or abab")
}
