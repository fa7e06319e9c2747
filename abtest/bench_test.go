package abtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/hbgkit/hbgkit/runtimeharness"
)

// defaultBlock runs one block of the default campaign's base arm
// (embedded:mirror=per_bind, 5 passes) in a fresh child, as ab runs it.
func defaultBlock(b *testing.B, dir string, i int) runtimeharness.BlockResult {
	cfg, err := runtimeharness.ParseArmSpec(DefaultBase.Spec)
	if err != nil {
		b.Fatal(err)
	}
	r := &runtimeharness.EmbeddedRunner{Config: cfg, Exe: os.Args[0]}
	res, err := r.Run(context.Background(), runtimeharness.BlockSpec{
		Rounds: DefaultConfig().Block, Out: filepath.Join(dir, "out", string(rune('a'+i%26))+time.Now().Format("150405.000000000")),
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

// BenchmarkBlockOverhead is what hbgbench adds to each block: spawning a
// process (a Go binary that exits at once, in its own process group, as a
// block is started), reading the block's log with the trace engine into
// per-pass metrics, journaling the block with fsync, and a tenth of the
// analysis of a 10-round campaign (its share per block). It reports the
// sum as a share of a default block's wall time, measured in the same run
// (median of 3 blocks): the "%-of-block" metric.
func BenchmarkBlockOverhead(b *testing.B) {
	dir := b.TempDir()
	var walls []time.Duration
	for i := range 3 {
		walls = append(walls, defaultBlock(b, dir, i).Wall)
	}
	slices.Sort(walls)
	wall := walls[1]
	logPath := filepath.Join(dir, "block.log")
	j, err := ReadJournal(filepath.Join("testdata", "campaign.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	w, err := CreateJournal(filepath.Join(dir, "bench.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if err := w.Append(j.Header); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), exitEnv+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		bp, err := ReadBlockLog([]string{logPath})
		if err != nil || len(bp.Passes) != DefaultConfig().Block {
			b.Fatalf("reading the block log: %v (%d passes)", err, len(bp.Passes))
		}
		if err := w.Append(BlockRecord{Type: lineBlock, Round: 1, Arm: "base", Passes: bp.Passes, Stamp: bp.Stamp}); err != nil {
			b.Fatal(err)
		}
		for range 2 { // 20 blocks of a 10-round campaign share one analysis: 1/10 per pair
			_ = Analyze(j)
		}
	}
	b.StopTimer()
	// The loop ran two Analyze calls of a 12-block journal per block: about
	// 2×12/20 = 1.2 analyses of a 20-block one, an overestimate.
	perOp := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(100*float64(perOp)/float64(wall), "%-of-block")
	b.ReportMetric(float64(wall.Milliseconds()), "block-ms")
}
