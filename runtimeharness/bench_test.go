//go:build cgo

package runtimeharness

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// BenchmarkBind runs b.N binds in one model run, in this process, the log
// to /dev/null. ns/op is per bind with the cold first bind amortised;
// warm-ns/bind is the mean chip.run.bind duration of the warm binds (the
// figure docs/harness.md records against the 50 ms budget).
func BenchmarkBind(b *testing.B) {
	for _, tc := range []struct {
		workload Workload
		mirror   Mirror
	}{
		{WorkloadDSV4Pair, MirrorPerBind},
		{WorkloadDSV4Pair, MirrorRetained},
		{WorkloadQwen3Decode, MirrorPerBind},
		{WorkloadDSV4Blocks7, MirrorPerBind},
	} {
		b.Run(fmt.Sprintf("%s/%s", tc.workload, tc.mirror), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Workload, cfg.Mirror = tc.workload, tc.mirror
			f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			rounds := max(b.N, 2)
			b.ResetTimer()
			res, err := RunModel(cfg, ModelOptions{Rounds: rounds, Log: f, BindStats: true})
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			var warm int64
			for _, st := range res.Stats[1:] {
				warm += st.DurNS
			}
			b.ReportMetric(float64(warm)/float64(len(res.Stats)-1), "warm-ns/bind")
		})
	}
}

// BenchmarkEmbeddedBlock runs one block of 5 dsv4-pair binds through the
// EmbeddedRunner: a fresh child process per block, as an A/B campaign does.
func BenchmarkEmbeddedBlock(b *testing.B) {
	dir := b.TempDir()
	r := testRunner(DefaultConfig())
	for i := 0; b.Loop(); i++ {
		spec := BlockSpec{Rounds: 5, Log: fmt.Sprintf("%s/%d.log", dir, i)}
		if _, err := r.Run(context.Background(), spec); err != nil {
			b.Fatal(err)
		}
	}
}
