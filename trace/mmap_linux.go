//go:build linux

package trace

import (
	"os"
	"syscall"
)

// mapFile maps a regular file of at least mapMin bytes that is not gzip
// for reading, so that chunks are slices of the page cache instead of
// copies of it; ok is false when it cannot, and the file is read instead.
func mapFile(f *os.File) (data []byte, ok bool) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < mapMin || st.Size() != int64(int(st.Size())) {
		return nil, false
	}
	var magic [2]byte
	if n, _ := f.ReadAt(magic[:], 0); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		return nil, false
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, false
	}
	_ = syscall.Madvise(data, syscall.MADV_SEQUENTIAL)
	return data, true
}

func unmapFile(data []byte) { _ = syscall.Munmap(data) }

// dropPages tells the kernel that the pages wholly inside b, a slice of a
// mapping, are read: they leave the process's resident set (the page
// cache keeps them), so reading a file of any size costs no memory. A
// page that is read again is mapped again.
func dropPages(b []byte) {
	if len(b) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafePointer(b))
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + uintptr(len(b))) &^ (page - 1)
	if hi <= lo {
		return
	}
	_ = syscall.Madvise(b[lo-start:hi-start], syscall.MADV_DONTNEED)
}
