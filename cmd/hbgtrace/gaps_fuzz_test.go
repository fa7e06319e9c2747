package main

import (
	"testing"
	"time"
)

// FuzzParseMinGap checks that any --min-gap text is either rejected or a
// positive threshold, and that a Go duration round-trips.
func FuzzParseMinGap(f *testing.F) {
	for _, s := range []string{"20us", "20µs", "1.5ms", "35", "0", "-1", "1e308", "NaN", "+Inf", "9223372036854775807ns", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ns, err := parseMinGap(s)
		if err != nil {
			return
		}
		if s == "" {
			if ns != 0 {
				t.Fatalf("empty gave %d", ns)
			}
			return
		}
		if ns <= 0 {
			t.Fatalf("%q gave %d", s, ns)
		}
		if d, err := time.ParseDuration(s); err == nil && d.Nanoseconds() != ns {
			t.Fatalf("%q: %d, want %d", s, ns, d.Nanoseconds())
		}
	})
}
