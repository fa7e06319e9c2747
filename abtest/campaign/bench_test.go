package campaign

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/runtimeharness"
)

// defaultBlock runs one block of the default campaign's base arm
// (embedded:mirror=per_bind, DefaultConfig().Block passes) in a fresh child, as ab runs it.
func defaultBlock(b *testing.B, dir string, i int) runtimeharness.BlockResult {
	cfg, err := runtimeharness.ParseArmSpec(journal.DefaultBase.Spec)
	if err != nil {
		b.Fatal(err)
	}
	r := &runtimeharness.EmbeddedRunner{Config: cfg, Exe: os.Args[0]}
	res, err := r.Run(context.Background(), runtimeharness.BlockSpec{
		Rounds: journal.DefaultConfig().Block, Out: filepath.Join(dir, "out", string(rune('a'+i%26))+time.Now().Format("150405.000000000")),
		Log: filepath.Join(dir, "block.log"),
	})
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// BenchmarkDefaultBlock is the wall time of one block of the default
// campaign: the denominator of the overhead.
func BenchmarkDefaultBlock(b *testing.B) {
	dir := b.TempDir()
	for i := 0; b.Loop(); i++ {
		defaultBlock(b, dir, i)
	}
}

// BenchmarkBlockOverhead is what hbgbench adds to each block, measured
// beside the wall time of a default block in the same run (the median of
// 3 blocks): spawning a process (a Go binary that exits at once, in its own
// process group, as every block is started: the price of a fresh process
// per block), reading the block's real log with the trace engine into
// per-pass metrics, journaling the block with fsync, and the block's share
// of the final analysis (one analysis of a 12-block journal, divided by
// 12). It reports each in ms and two shares of the block's wall time:
// "host-%" for what hbgbench does in its own process (parse, journal,
// analysis) and "spawn-%" for the process start.
func BenchmarkBlockOverhead(b *testing.B) {
	dir := b.TempDir()
	var walls []time.Duration
	for i := range 3 {
		walls = append(walls, defaultBlock(b, dir, i).Wall)
	}
	slices.Sort(walls)
	wall := walls[1]
	logPath := filepath.Join(dir, "block.log")
	j, err := journal.ReadJournal(filepath.Join("..", "journal", "testdata", "campaign.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	w, err := journal.CreateJournal(filepath.Join(dir, "bench.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if err := w.Append(j.Header); err != nil {
		b.Fatal(err)
	}
	var spawn, parse, journaling, analysing time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), exitEnv+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		bp, err := metric.ReadBlockLog([]string{logPath})
		if err != nil || len(bp.Passes) != journal.DefaultConfig().Block {
			b.Fatalf("reading the block log: %v (%d passes)", err, len(bp.Passes))
		}
		t2 := time.Now()
		if err := w.Append(journal.BlockRecord{Type: journal.LineBlock, Round: 1, Arm: "base", Passes: bp.Passes, Stamp: bp.Stamp}); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		_ = analysis.Analyze(j)
		t4 := time.Now()
		spawn += t1.Sub(t0)
		parse += t2.Sub(t1)
		journaling += t3.Sub(t2)
		analysing += t4.Sub(t3) / time.Duration(len(j.Blocks))
	}
	b.StopTimer()
	n := time.Duration(b.N)
	ms := func(d time.Duration) float64 { return float64(d/n) / 1e6 }
	b.ReportMetric(ms(spawn), "spawn-ms")
	b.ReportMetric(ms(parse), "parse-ms")
	b.ReportMetric(ms(journaling), "journal-ms")
	b.ReportMetric(ms(analysing), "analysis-ms")
	b.ReportMetric(float64(wall)/1e6, "block-ms")
	b.ReportMetric(100*float64((parse+journaling+analysing)/n)/float64(wall), "host-%")
	b.ReportMetric(100*float64(spawn/n)/float64(wall), "spawn-%")
}
