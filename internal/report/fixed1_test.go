package report

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func strconvFixed1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// The integer paths of appendFixed1 and appendNsMicros1 give strconv's
// digits: every n up to 2·10^5 (every tie and near-tie of small values),
// random n up to 2^50 and near it, and values that are not whole ns.
func TestFixed1MatchesStrconv(t *testing.T) {
	check := func(n int64) {
		t.Helper()
		x := float64(n) / 1000
		want := strconvFixed1(x)
		if got := string(appendNsMicros1(nil, n)); got != want {
			t.Fatalf("appendNsMicros1(%d) = %q, strconv %q", n, got, want)
		}
		if got := string(appendFixed1(nil, x)); got != want {
			t.Fatalf("appendFixed1(%v) = %q, strconv %q", x, got, want)
		}
	}
	for n := int64(-1000); n <= 200000; n++ {
		check(n)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		check(r.Int64N(1 << 50))
		check(r.Int64N(1<<20)*100 + 50) // ties
		check(1<<50 - r.Int64N(1000))
		check(r.Int64N(1<<40) * 1000)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 0.05, 0.15, 0.25, 1.25, 1.35, 2.675, 1e-7, 123.456789,
		1 << 40, 1<<40 - 0.001, 1e15, -0.05, -1.25, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64} {
		if got, want := string(appendFixed1(nil, x)), strconvFixed1(x); got != want {
			t.Fatalf("appendFixed1(%v) = %q, strconv %q", x, got, want)
		}
	}
	for range 200000 {
		x := r.Float64() * math.Pow(10, float64(r.IntN(14)))
		if got, want := string(appendFixed1(nil, x)), strconvFixed1(x); got != want {
			t.Fatalf("appendFixed1(%v) = %q, strconv %q", x, got, want)
		}
	}
}

func FuzzFixed1(f *testing.F) {
	f.Add(int64(1250), 1.25)
	f.Add(int64(1350), 2.675)
	f.Fuzz(func(t *testing.T, n int64, x float64) {
		if got, want := string(appendNsMicros1(nil, n)), strconvFixed1(float64(n)/1000); got != want {
			t.Fatalf("appendNsMicros1(%d) = %q, strconv %q", n, got, want)
		}
		if got, want := string(appendFixed1(nil, x)), strconvFixed1(x); got != want {
			t.Fatalf("appendFixed1(%v) = %q, strconv %q", x, got, want)
		}
	})
}
