// Package hugeheap asks the kernel for transparent huge pages under the
// part of the Go heap a long read is about to fill.
//
// A page fault on fresh memory costs 1–2 µs on bare metal and about 12 µs
// on a Firecracker VM (docs/performance.md); hbgtrace's collectors touch
// 15 MB of fresh heap on a 100 MB log and 110 MB on a 1 GB one, so most of
// its system time was page faults. Where transparent huge pages are in
// "madvise" mode (Debian's and Ubuntu's default) the Go runtime does not
// ask for them on the heap, so each 4 KiB page faults alone. Prepare maps n
// bytes of heap at once (one large allocation, which the runtime takes
// fresh from the kernel and does not touch), marks those mappings
// MADV_HUGEPAGE, and frees them with a collection: the runtime hands its
// free pages out lowest address first, so the read's allocations land in
// the marked mappings and fault 2 MiB at a time.
//
// It changes no value and no output, only how the memory is paged in; it
// does nothing where huge pages are "never" or already "always", off
// Linux, or with HBGKIT_HUGEPAGES=0.
package hugeheap

import (
	"os"
	"strings"
)

// Env turns Prepare off when set to 0.
const Env = "HBGKIT_HUGEPAGES"

// modeFile holds the system's transparent huge page mode.
const modeFile = "/sys/kernel/mm/transparent_hugepage/enabled"

// maxBytes caps what Prepare maps.
const maxBytes = 256 << 20

// Prepare readies n bytes of heap (at most 256 MiB) for huge pages (see
// the package comment) and reports whether it marked any. Call it before a
// long read, while the heap is small. Under strict overcommit
// (vm.overcommit_memory=2) it does nothing: the mapping would count
// against the commit limit, and the runtime cannot survive a refusal.
func Prepare(n int64) bool {
	if n <= 0 || os.Getenv(Env) == "0" || !madviseMode() || strictOvercommit() {
		return false
	}
	return prepare(min(n, maxBytes))
}

// A Keep says how much of a log a read keeps on the heap.
type Keep int

const (
	// Summary is a read that keeps what it summarises (the table views):
	// 15 MB of a 100 MB log, 110 MB of 1 GB.
	Summary Keep = iota
	// Whole is a read that keeps every span to lay out a document (trace,
	// swimlane, pprof, gaps): up to twice the log (swimlane: 190 MB of a
	// 100 MB log; trace 53 MB, pprof 83 MB).
	Whole
)

// ForRead returns how much heap to prepare before reading size bytes of
// log for a read that keeps k: a sixth of the log for Summary, twice it
// for Whole; nothing below 32 MB of log, where the faults cost less than
// the collection Prepare makes. Preparing more than the read fills costs
// address space, not memory: a marked page is paged in only when touched.
func ForRead(size int64, k Keep) int64 {
	if size < 32<<20 {
		return 0
	}
	if k == Whole {
		return 2 * size
	}
	return size / 6
}

// strictOvercommit reports whether the kernel refuses to map beyond its
// commit limit.
func strictOvercommit() bool {
	b, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	return err == nil && strings.TrimSpace(string(b)) == "2"
}

// madviseMode reports whether huge pages are given to the mappings that
// ask for them only.
func madviseMode() bool {
	b, err := os.ReadFile(modeFile)
	return err == nil && strings.Contains(string(b), "[madvise]")
}
