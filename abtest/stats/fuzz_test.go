package stats

import (
	"encoding/binary"
	"math"
	"testing"
)

// fuzzFloats decodes fuzz bytes into float64s. The first byte picks the
// decoding: even, every 8 bytes are a float64's bits (NaN, infinities,
// subnormals, extremes); odd, every byte is a small integer in [−2, 5], so
// ties, zeros and negatives are common.
func fuzzFloats(data []byte) []float64 {
	if len(data) == 0 {
		return nil
	}
	mode, data := data[0], data[1:]
	var x []float64
	if mode%2 == 0 {
		for len(data) >= 8 {
			x = append(x, math.Float64frombits(binary.LittleEndian.Uint64(data)))
			data = data[8:]
		}
		return x
	}
	for _, b := range data {
		x = append(x, float64(int(b%8)-2))
	}
	return x
}

// seeds are inputs every fuzz target starts from.
var seeds = [][]byte{
	nil,
	{1},
	{1, 3},
	{1, 3, 3},
	{1, 3, 4, 5, 6, 7, 3, 3, 2},
	{1, 2, 2, 2, 2, 2, 2},
	{0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f},                                     // 1, NaN
	{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f, 1, 0, 0, 0, 0, 0, 0, 0},                         // MaxFloat64, smallest subnormal
	{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f}, // MaxFloat64 twice
}

func FuzzDescribe(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, 0)
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, data []byte, trim int) {
		x := fuzzFloats(data)
		s, err := Describe(x, trim)
		if err != nil {
			return
		}
		tol := 1e-12 * math.Max(math.Abs(s.Min), math.Abs(s.Max))
		if !(s.Min <= s.Median && s.Median <= s.Max) {
			t.Fatalf("median %v outside [%v, %v]", s.Median, s.Min, s.Max)
		}
		if !(s.Min-tol <= s.TrimmedMean && s.TrimmedMean <= s.Max+tol) {
			t.Fatalf("trimmed mean %v outside [%v, %v]", s.TrimmedMean, s.Min, s.Max)
		}
		if !(s.Min-tol <= s.Mean && s.Mean <= s.Max+tol) {
			t.Fatalf("mean %v outside [%v, %v]", s.Mean, s.Min, s.Max)
		}
		if s.N >= 2 && !(s.WinsorizedSD >= 0) {
			t.Fatalf("winsorized SD %v", s.WinsorizedSD)
		}
	})
}

func FuzzPaired(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, uint8(0), 0.0)
		f.Add(s, uint8(20), 0.9)
	}
	f.Fuzz(func(t *testing.T, data []byte, boot uint8, level float64) {
		x := fuzzFloats(data)
		a, b := x[:len(x)/2], x[len(x)/2:]
		if len(x)%2 == 1 && len(data)%3 == 0 {
			b = x[len(x)/2+1:] // also try equal lengths from odd inputs
		}
		opts := PairedOptions{Level: level, Bootstrap: int(boot % 64), Seed: uint64(len(data))}
		p, err := Paired(a, b, opts)
		m, merr := DeltaMin(a, b, opts)
		if (err == nil) != (merr == nil) {
			t.Fatalf("Paired error %v, DeltaMin error %v", err, merr)
		}
		if err != nil {
			if !math.IsNaN(p.Delta) || !math.IsNaN(m.Delta) {
				t.Fatalf("failed analysis returned Δ = %v", p.Delta)
			}
			return
		}
		if !(p.CI.Lo <= p.Delta && p.Delta <= p.CI.Hi) {
			t.Fatalf("Δ %v outside CI %v", p.Delta, p.CI)
		}
		if !(p.Wilcoxon.P >= 0 && p.Wilcoxon.P <= 1) || !(p.Sign.P >= 0 && p.Sign.P <= 1) {
			t.Fatalf("p-values %v %v", p.Wilcoxon.P, p.Sign.P)
		}
		if opts.Bootstrap > 0 && !(p.Boot.Lo <= p.Boot.Hi) {
			t.Fatalf("bootstrap interval %v", p.Boot)
		}
		if math.IsNaN(m.Global) {
			t.Fatalf("Global NaN with valid input")
		}
		_ = Decide(p.Delta, p.CI, p.R, DefaultMargin).Gate(p.Wilcoxon.P)
	})
}

func FuzzWilcoxon(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := fuzzFloats(data)
		w, err := Wilcoxon(d)
		if err != nil {
			return
		}
		if w.N+w.Zeros != len(d) {
			t.Fatalf("N %d + Zeros %d != %d", w.N, w.Zeros, len(d))
		}
		n := float64(w.N)
		if w.WPlus+w.WMinus != n*(n+1)/2 {
			t.Fatalf("W+ %v + W− %v != N(N+1)/2 for N = %d", w.WPlus, w.WMinus, w.N)
		}
		// P may underflow to 0 for a long one-sided sample.
		if !(w.P >= 0 && w.P <= 1) {
			t.Fatalf("P = %v", w.P)
		}
	})
}

func FuzzHolm(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzFloats(data)
		adj := Holm(p)
		if len(adj) != len(p) {
			t.Fatalf("%d adjusted for %d", len(adj), len(p))
		}
		for i := range p {
			if p[i] >= 0 && p[i] <= 1 {
				if !(adj[i] >= p[i] && adj[i] <= 1) {
					t.Fatalf("p %v adjusted to %v", p[i], adj[i])
				}
			} else if !math.IsNaN(adj[i]) {
				t.Fatalf("invalid p %v adjusted to %v", p[i], adj[i])
			}
		}
	})
}

func FuzzNoise(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x := fuzzFloats(data)
		if r, err := Lag1(x); err == nil && !(r >= -1-1e-9 && r <= 1+1e-9) {
			t.Fatalf("lag-1 autocorrelation %v", r)
		}
		if s, err := DriftSlope(x); err == nil && math.IsNaN(s) {
			t.Fatalf("drift slope NaN without an error")
		}
	})
}

func FuzzUnpaired(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, uint8(1), 0.0)
		f.Add(s, uint8(3), 0.9)
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint8, level float64) {
		x := fuzzFloats(data)
		k := 0
		if len(x) > 0 {
			k = int(split) % (len(x) + 1)
		}
		a, b := x[:k], x[k:]
		if r, err := RankSum(a, b); err == nil {
			if !(r.P >= 0 && r.P <= 1) || !(r.U >= 0 && r.U <= float64(len(a)*len(b))) {
				t.Fatalf("rank sum: p %v, U %v of %d×%d", r.P, r.U, len(a), len(b))
			}
		}
		u, err := Unpaired(a, b, level)
		if err != nil {
			if !math.IsNaN(u.Delta) {
				t.Fatalf("failed analysis returned Δ = %v", u.Delta)
			}
			return
		}
		tol := 1e-9 * math.Max(1, math.Abs(u.Delta))
		if !(u.CI.Lo-tol <= u.Delta && u.Delta <= u.CI.Hi+tol) && !math.IsInf(u.Delta, 0) {
			t.Fatalf("Δ %v outside CI %v", u.Delta, u.CI)
		}
		if !(u.RankSum.P >= 0 && u.RankSum.P <= 1) {
			t.Fatalf("p %v", u.RankSum.P)
		}
	})
}
