//go:build cgo

package runtimeharness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sanitizeEnv turns on TestSanitizers (about 70 s on 2 cores); it is meant
// to be set by .ci/run.
const sanitizeEnv = "HBGKIT_SANITIZE"

// TestSanitizers builds the C model into a standalone driver twice, with
// -fsanitize=thread and with -fsanitize=address,undefined, and drives every
// workload, mirror mode and recorder setting (prewarmed, and fewer threads
// than Definitions so threads are created and joined mid-burst), every
// graph_pod variant and epoch, ranks=2, records on, and the ascend backend
// against the ACL stub. Any report fails the run (halt_on_error).
func TestSanitizers(t *testing.T) {
	if os.Getenv(sanitizeEnv) != "1" {
		t.Skipf("set %s=1 to build and run the C model under TSan and ASan/UBSan", sanitizeEnv)
	}
	srcs, err := filepath.Glob("hbgh_*.c")
	require.NoError(t, err)
	require.NotEmpty(t, srcs)
	dir := t.TempDir()
	stub := filepath.Join(dir, "libascendcl.so")
	out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", stub,
		filepath.Join("testdata", "ascendstub", "acl_stub.c")).CombinedOutput()
	require.NoError(t, err, "%s", out)

	type run struct{ workload, mirror, prewarm, pod, epoch, ranks, rounds, device int }
	var runs []run
	for wl := 0; wl < 3; wl++ {
		for mirror := 0; mirror < 2; mirror++ {
			for _, prewarm := range []int{8, 2, 0} {
				runs = append(runs, run{wl, mirror, prewarm, 0, 0, 1, 3, 0})
			}
		}
		for pod := 1; pod < 3; pod++ {
			for epoch := 0; epoch < 4; epoch++ {
				runs = append(runs, run{wl, 1, 2, pod, epoch, 1, 3, 0})
			}
		}
	}
	runs = append(runs, run{0, 0, 8, 2, 2, 2, 3, 0}, run{1, 1, 0, 1, 3, 2, 3, 0},
		run{0, 1, 8, 2, 0, 1, 3, 1}, run{2, 0, 2, 0, 3, 1, 3, 1})

	for _, san := range []struct{ name, flags, env string }{
		{"tsan", "-fsanitize=thread", "TSAN_OPTIONS=halt_on_error=1 exitcode=66"},
		{"asan", "-fsanitize=address,undefined -fno-sanitize-recover=all",
			"ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"},
	} {
		t.Run(san.name, func(t *testing.T) {
			bin := filepath.Join(dir, "driver-"+san.name)
			args := append(strings.Fields(san.flags), "-g", "-O1", "-std=gnu11", "-Wall", "-Wextra",
				"-o", bin, filepath.Join("testdata", "sanitize", "driver.c"))
			args = append(append(args, srcs...), "-lpthread", "-ldl")
			out, err := exec.Command("gcc", args...).CombinedOutput()
			require.NoError(t, err, "building: %s", out)
			for i, r := range runs {
				name := fmt.Sprintf("%d:wl=%d,mirror=%d,prewarm=%d,pod=%d,epoch=%d,ranks=%d,dev=%d",
					i, r.workload, r.mirror, r.prewarm, r.pod, r.epoch, r.ranks, r.device)
				records := filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", san.name, i))
				cmd := exec.Command(bin, fmt.Sprint(r.workload), fmt.Sprint(r.mirror), fmt.Sprint(r.prewarm),
					fmt.Sprint(r.pod), fmt.Sprint(r.epoch), fmt.Sprint(r.ranks), fmt.Sprint(r.rounds),
					fmt.Sprint(r.device), records, stub)
				cmd.Env = append(os.Environ(), strings.Fields(san.env)...)
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "%s: %s", name, out)
				require.NotContains(t, string(out), "WARNING: ThreadSanitizer", name)
				require.NotContains(t, string(out), "runtime error", name)
			}
		})
	}
}
