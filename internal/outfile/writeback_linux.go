//go:build linux

package outfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing n bytes of f from off to
// the disk now, without waiting (sync_file_range(2) with
// SYNC_FILE_RANGE_WRITE), so that the Sync of Commit waits for the tail
// only, not for the whole file written while the command was busy
// formatting. It is advice: an error is ignored, and Sync reports any
// that the write-back meets.
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
