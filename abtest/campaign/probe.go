package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/runtimeharness"
)

// probeMetric checks, before a campaign of embedded arms writes its
// journal, that every arm records the --metric it names: it runs one
// short block of each distinct arm (the cold passes and two warm ones) in
// a scratch directory and reads its log. An embedded arm in E1 writes no
// kernel counters, and a metric of them would otherwise fail every block. Arms
// of other kinds are not probed (a probe block of a real workload is not
// free); their first block says so instead.
func probeMetric(ctx context.Context, h journal.Header, exe string) error {
	arms, names := h.ArmList(), h.ArmNames()
	if h.Primary.IsZero() || slices.ContainsFunc(arms, func(a journal.Arm) bool { return a.Kind != journal.KindEmbedded }) {
		return nil
	}
	name := h.Primary.Name
	dir, err := os.MkdirTemp("", "hbgbench-probe-")
	if err != nil {
		return fmt.Errorf("probing --metric %s: %w", name, err)
	}
	defer os.RemoveAll(dir)
	for arm, a := range arms {
		if slices.ContainsFunc(arms[:arm], a.Equal) {
			continue
		}
		r, err := armRunner(a, exe, dir, h.Config.Records)
		if err != nil {
			return fmt.Errorf("probing --metric %s: %w", name, err)
		}
		spec := runtimeharness.BlockSpec{
			Rounds: h.Config.Cold + 2, Out: filepath.Join(dir, names[arm]),
			Log: filepath.Join(dir, names[arm]+".log"), Timeout: h.Config.Timeout, CPUs: h.Config.CPUs,
		}
		if _, err := r.Run(ctx, spec); err != nil {
			return fmt.Errorf("probing --metric %s with a block of %s: %w", name, a.Spec, err)
		}
		bp, err := metric.ReadBlock(metric.OutFiles(spec.Log, spec.Out))
		if err != nil {
			return fmt.Errorf("probing --metric %s: reading %s's log: %w", name, a.Spec, err)
		}
		seen := map[string]bool{}
		for _, p := range bp.Passes {
			if p.Index < h.Config.Cold {
				continue
			}
			for k := range p.Values {
				seen[k] = true
			}
		}
		if !seen[name] {
			var have []string
			ms, _ := metric.MetricsOf(seen)
			for _, m := range ms {
				have = append(have, m.Name)
			}
			hint := ""
			if m, ok := metric.LookupMetric(name); ok && m.Family == metric.FamilyLanes && !h.Config.Records {
				hint = "; the lane metrics need host_phase_records.jsonl, which an embedded arm writes under --records"
			}
			return fmt.Errorf("--metric %s: no warm pass of %s records it (a probe block of %d passes)%s; the metrics it records: %s",
				name, a.Spec, spec.Rounds, hint, strings.Join(have, ", "))
		}
	}
	return nil
}
