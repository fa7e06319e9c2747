//go:build cgo

package runtimeharness

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// BenchmarkBind runs b.N binds in one model run, in this process, the log
// to /dev/null. ns/op is per bind with the cold binds amortised;
// warm-ns/bind is the mean chip.run.bind duration of the binds from the
// third on (the figure docs/harness.md records against the 50 ms budget).
func BenchmarkBind(b *testing.B) {
	for _, tc := range []struct {
		workload Workload
		mirror   Mirror
		pod      GraphPod
	}{
		{WorkloadDSV4Pair, MirrorPerBind, GraphPodCurrent},
		{WorkloadDSV4Pair, MirrorRetained, GraphPodCurrent},
		{WorkloadDSV4Pair, MirrorRetained, GraphPodDeferredPageable},
		{WorkloadDSV4Pair, MirrorRetained, GraphPodEagerPinned},
		{WorkloadQwen3Decode, MirrorPerBind, GraphPodCurrent},
		{WorkloadDSV4Blocks7, MirrorPerBind, GraphPodCurrent},
	} {
		name := fmt.Sprintf("%s/%s", tc.workload, tc.mirror)
		if tc.pod != GraphPodCurrent {
			name += "/" + string(tc.pod)
		}
		b.Run(name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Workload, cfg.Mirror, cfg.GraphPod = tc.workload, tc.mirror, tc.pod
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
			// Binds 1 and 2 of a process are cold (glibc's dynamic mmap
			// threshold, docs/harness.md "Cold binds"); warm is from bind 3.
			warm := res.Stats[min(2, len(res.Stats)-1):]
			var sum int64
			for _, st := range warm {
				sum += st.DurNS
			}
			b.ReportMetric(float64(sum)/float64(len(warm)), "warm-ns/bind")
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
