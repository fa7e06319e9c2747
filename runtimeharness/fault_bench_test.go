//go:build linux

package runtimeharness

import (
	"syscall"
	"testing"
)

// mirrorFaults is the number of 4 KiB pages a per_bind dsv4-pair bind
// first-writes in its fresh SM mirror: 1131 slots of 5,033 bytes.
const mirrorFaults = 1390

// BenchmarkMinorFault measures what one minor page fault costs on this
// machine: each op maps 1,390 fresh anonymous pages (huge pages refused
// with MADV_NOHUGEPAGE), writes one byte in each, and unmaps them. ns/op
// is then the fault cost per_bind adds to every warm dsv4-pair bind, and
// ns/fault the cost of one fault, to scale other counts by (docs/harness.md,
// "Speed"). The munmap is part of the op, as per_bind's free is.
func BenchmarkMinorFault(b *testing.B) {
	const page = 4096
	size := mirrorFaults * page
	b.SetBytes(int64(size))
	for b.Loop() {
		mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			b.Fatal(err)
		}
		if err := syscall.Madvise(mem, 15 /* MADV_NOHUGEPAGE */); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < size; i += page {
			mem[i] = 1
		}
		if err := syscall.Munmap(mem); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/mirrorFaults, "ns/fault")
}
