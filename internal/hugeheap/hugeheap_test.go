package hugeheap

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vmFlags returns the VmFlags of the mapping of /proc/self/smaps that
// holds addr.
func vmFlags(t *testing.T, addr uint64) string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	s := bufio.NewScanner(f)
	in := false
	for s.Scan() {
		l := s.Text()
		if r, _, ok := strings.Cut(l, " "); ok && strings.Contains(r, "-") && !strings.HasSuffix(r, ":") {
			a, z, _ := strings.Cut(r, "-")
			lo, err1 := strconv.ParseUint(a, 16, 64)
			hi, err2 := strconv.ParseUint(z, 16, 64)
			in = err1 == nil && err2 == nil && lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(l, "VmFlags:") {
			return l
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return ""
}

// TestPrepareMarksTheHeapTheReadFills: where huge pages are given on
// request, the heap an allocation made after Prepare lands in is marked
// for them ("hg" in VmFlags); elsewhere Prepare says it did nothing. With
// HBGKIT_HUGEPAGES=0 it does nothing anywhere.
// It runs in a fresh process of its own, whose heap nothing has marked.
func TestPrepareMarksTheHeapTheReadFills(t *testing.T) {
	if os.Getenv("HUGEHEAP_TEST_CHILD") == "" {
		c := exec.Command(os.Args[0], "-test.run=^TestPrepareMarksTheHeapTheReadFills$", "-test.v")
		c.Env = append(os.Environ(), "HUGEHEAP_TEST_CHILD=1")
		out, err := c.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "--- PASS: TestPrepareMarksTheHeapTheReadFills")
		return
	}
	if !madviseMode() {
		assert.False(t, Prepare(16<<20), "huge pages are not in madvise mode here: nothing to mark")
		return
	}
	// The control: the runtime does not mark its heap by itself.
	before := make([]byte, 1<<20)
	before[0] = 1
	require.NotContains(t, vmFlags(t, uint64(uintptr(unsafe.Pointer(&before[0])))), " hg", "the heap is marked before Prepare: the test shows nothing")
	require.True(t, Prepare(16<<20))
	b := make([]byte, 4<<20)
	b[0] = 1
	assert.Contains(t, vmFlags(t, uint64(uintptr(unsafe.Pointer(&b[0])))), " hg", "the allocation after Prepare is in a marked mapping")

	t.Setenv(Env, "0")
	assert.False(t, Prepare(16<<20))
	assert.False(t, Prepare(0))
}

// TestForRead: a read that keeps the whole log prepares twice the log
// (swimlane's heap on a 100 MB log is 190 MB: sized as the summaries'
// sixth, 158 MB of it faulted a 4 KiB page at a time); a summary a sixth;
// a small log nothing.
func TestForRead(t *testing.T) {
	const mb = 1 << 20
	assert.Equal(t, int64(200*mb), ForRead(100*mb, Whole))
	assert.Equal(t, int64(100*mb/6), ForRead(100*mb, Summary))
	assert.Zero(t, ForRead(31*mb, Whole))
	assert.Zero(t, ForRead(0, Summary))
}
