package hugeheap

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// arenaBytes is the Go heap's arena size and alignment on 64-bit Linux.
const arenaBytes = 64 << 20

func prepare(n int64) bool {
	const huge = 2 << 20
	n = (n + huge - 1) &^ (huge - 1)
	b := make([]byte, n)
	lo := uint64(uintptr(unsafe.Pointer(&b[0])))
	hi := lo + uint64(n)
	lo &^= arenaBytes - 1
	hi = (hi + arenaBytes - 1) &^ (arenaBytes - 1)
	marked := markAnonymous(lo, hi)
	runtime.KeepAlive(b)
	b = nil
	// Free the allocation now, before the read allocates: its pages are
	// then the lowest free ones.
	runtime.GC()
	return marked
}

// markAnonymous marks MADV_HUGEPAGE every private anonymous read-write
// mapping that meets [lo, hi), and reports whether it marked one.
func markAnonymous(lo, hi uint64) bool {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return false
	}
	defer f.Close()
	marked := false
	s := bufio.NewScanner(f)
	for s.Scan() {
		r, rest, _ := strings.Cut(s.Text(), " ")
		if !strings.HasPrefix(rest, "rw-p 00000000 00:00 0") {
			continue
		}
		a, z, ok := strings.Cut(r, "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(a, 16, 64)
		end, err2 := strconv.ParseUint(z, 16, 64)
		if err1 != nil || err2 != nil || end <= lo || start >= hi {
			continue
		}
		// The range is a mapping of this process, named by address:
		// there is no Go pointer to pass.
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), madvHugepage); e == 0 {
			marked = true
		}
	}
	return marked
}

// madvHugepage is MADV_HUGEPAGE.
const madvHugepage = 14
