package stats

import "testing"

// BenchmarkPaired times the analysis of one metric over a default-sized
// campaign of 20 rounds, without and with a 2000-resample bootstrap.
func BenchmarkPaired(b *testing.B) {
	r := newRunner(modelBlockMedian, 1)
	a, bb := r.next()
	for _, bench := range []struct {
		name string
		opts PairedOptions
	}{
		{"trimmed-t", PairedOptions{}},
		{"bootstrap-2000", PairedOptions{Bootstrap: 2000, Seed: 1}},
	} {
		b.Run(bench.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Paired(a, bb, bench.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
