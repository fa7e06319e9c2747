package journal

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// An Order is the order a campaign runs each round's arms in
// (docs/ab-method.md "Order of the arms").
type Order string

// The orders.
const (
	OrderRMIT Order = "rmit" // per round A-B or B-A from the seeded PRNG
	OrderABBA Order = "abba" // AB, BA, AB, ...: counterbalances linear drift
	OrderABAB Order = "abab" // always AB: today's habit, biased under drift
)

// scheduleStream is the constant of the schedule's PCG streams, "rmit" in
// ASCII; round i draws from the stream scheduleStream+i, so that any round's
// order follows from the seed alone (a shard can run round 17 without
// drawing rounds 1..16).
const scheduleStream uint64 = 0x726d6974

// A Schedule says which arm runs first in each round. It is written whole
// into the journal header, with the seed and the name of its stream, so
// that a resumed campaign, a later look at it, or another host running some
// of its rounds replays the same order.
type Schedule struct {
	Order  Order  `json:"order"`
	Seed   uint64 `json:"seed"`
	Stream string `json:"stream"` // how First(i) is drawn, for a reader of the journal
	Rounds int    `json:"rounds"`
	Warmup int    `json:"warmup"` // blocks per arm before round 1, never analysed
	// Firsts[i-1] is the arm that runs first in round i, "base" or "head":
	// First(i) written out, so the journal is readable without this code.
	Firsts []string `json:"firsts"`
	// Arms is the number of arms of a campaign of more than two (--arm,
	// --sweep), and Orders[i-1] the arm indexes (0 = base) of round i in
	// the order they run; Firsts is then empty. Both are absent for two
	// arms.
	Arms   int     `json:"arms,omitempty"`
	Orders [][]int `json:"orders,omitempty"`
}

// NewSchedule returns the schedule of rounds rounds in order, drawn from seed.
func NewSchedule(order Order, seed uint64, rounds, warmup int) (Schedule, error) {
	switch order {
	case OrderRMIT, OrderABBA, OrderABAB:
	default:
		return Schedule{}, fmt.Errorf("order %q: want rmit, abba or abab", order)
	}
	s := Schedule{Order: order, Seed: seed, Rounds: rounds, Warmup: warmup}
	if order == OrderRMIT {
		s.Stream = fmt.Sprintf("round i: PCG(seed, %#x+i).Uint64()&1, 0 = base first", scheduleStream)
	} else {
		s.Stream = "fixed: " + string(order)
	}
	for i := 1; i <= rounds; i++ {
		s.Firsts = append(s.Firsts, ArmNames[s.first(i)])
	}
	return s, nil
}

// NewScheduleN returns the schedule of a campaign of n arms: NewSchedule's
// for two; for more, rmit runs each round's arms in a permutation drawn
// from the round's own stream, abab in index order, abba in index order
// on odd rounds and reversed on even ones.
func NewScheduleN(order Order, seed uint64, rounds, warmup, n int) (Schedule, error) {
	if n <= 2 {
		return NewSchedule(order, seed, rounds, warmup)
	}
	s, err := NewSchedule(order, seed, 0, warmup)
	if err != nil {
		return s, err
	}
	s.Rounds, s.Arms, s.Firsts = rounds, n, nil
	if order == OrderRMIT {
		s.Stream = fmt.Sprintf("round i: PCG(seed, %#x+i).Perm(%d), arm indexes in run order, 0 = base", scheduleStream, n)
	}
	for i := 1; i <= rounds; i++ {
		s.Orders = append(s.Orders, s.RoundOrder(i))
	}
	return s, nil
}

// RoundOrder returns the arm indexes of round i (1-based) in the order
// they run, for any number of arms.
func (s Schedule) RoundOrder(i int) []int {
	if s.Arms <= 2 {
		a := s.RoundArms(i)
		return a[:]
	}
	out := make([]int, s.Arms)
	for k := range out {
		out[k] = k
	}
	switch s.Order {
	case OrderABBA:
		if i%2 == 0 {
			slices.Reverse(out)
		}
	case OrderRMIT:
		out = rand.New(rand.NewPCG(s.Seed, scheduleStream+uint64(i))).Perm(s.Arms)
	}
	return out
}

// first returns the arm (Base or Head) that runs first in round i (1-based).
func (s Schedule) first(i int) int {
	switch s.Order {
	case OrderABBA:
		return (i - 1) % 2
	case OrderABAB:
		return Base
	}
	rng := rand.New(rand.NewPCG(s.Seed, scheduleStream+uint64(i)))
	return int(rng.Uint64() & 1)
}

// RoundArms returns the arms of round i (1-based) in the order they run.
func (s Schedule) RoundArms(i int) [2]int {
	f := s.first(i)
	return [2]int{f, 1 - f}
}
