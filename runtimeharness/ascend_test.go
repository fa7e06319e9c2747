//go:build cgo

package runtimeharness

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stubAscend builds testdata/ascendstub/acl_stub.c into
// <dir>/lib64/libascendcl.so, points ASCEND_HOME_PATH at dir and the stub's
// call log at a file, and returns that file's path.
func stubAscend(t *testing.T) string {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler: %v", err)
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib64", "libascendcl.so")
	require.NoError(t, os.MkdirAll(filepath.Dir(lib), 0o755))
	out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-o", lib,
		filepath.Join("testdata", "ascendstub", "acl_stub.c")).CombinedOutput()
	require.NoError(t, err, "building the ACL stub: %s", out)
	t.Setenv(AscendHomeEnv, dir)
	calls := filepath.Join(dir, "calls.log")
	t.Setenv("HBGH_STUB_LOG", calls)
	t.Setenv("HBGH_STUB_FAIL_MEMCPY", "")
	return calls
}

func stubCalls(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func count(calls []string, name string) int {
	n := 0
	for _, c := range calls {
		if c == name {
			n++
		}
	}
	return n
}

// TestAscendCallOrder runs the ascend backend against the stub: ACL is
// initialised and the device set before any allocation, every upload is an
// aclrtMemcpy (a real copy into the stub's buffers), every allocation is
// freed, and aclFinalize comes last. With eager_pinned the pinned arena is
// one aclrtMallocHost and the per-(Definition, occurrence) device buffers
// are allocated in the first bind only, then retained.
func TestAscendCallOrder(t *testing.T) {
	calls := stubAscend(t)
	for _, pod := range []GraphPod{GraphPodCurrent, GraphPodEagerPinned} {
		t.Run(string(pod), func(t *testing.T) {
			require.NoError(t, os.WriteFile(calls, nil, 0o644))
			cfg := DefaultConfig()
			cfg.Device = Device{Kind: "ascend", CallNS: defaultDeviceCallNS, PinNS: defaultDevicePinNS,
				DMABytesPerSec: defaultDeviceDMABytesPerS, BounceBytes: defaultDeviceBounceBytes}
			cfg.GraphPod = pod
			text, res := runInProcess(t, cfg, 3, "")
			pl := checkLog(t, text, wantLog{binds: 3, firstInv: res.Stats[0].Inv})
			for _, p := range pl.passes {
				for _, l := range p.phases {
					assert.NotContains(t, l.kv, "dev", "%s: real device time is not dev=model", l.name)
				}
			}
			assert.True(t, strings.HasSuffix(pl.stamp, " dev=ascend"), "no modelled constants in the stamp: %s", pl.stamp)

			c := stubCalls(t, calls)
			require.GreaterOrEqual(t, len(c), 4)
			assert.Equal(t, []string{"aclInit", "aclrtSetDevice"}, c[:2], "init and device first")
			assert.Equal(t, "aclFinalize", c[len(c)-1], "finalize last")
			assert.Equal(t, count(c, "aclrtMalloc"), count(c, "aclrtFree"), "every device buffer freed")
			assert.Equal(t, count(c, "aclrtMallocHost"), count(c, "aclrtFreeHost"))
			assert.NotContains(t, c, "aclrtMemcpy BADARGS")
			layers := 20
			perBind := 2 // graph_upload (one Definition), arena_h2d
			if pod == GraphPodEagerPinned {
				perBind = layers + 1
				assert.Equal(t, 1, count(c, "aclrtMallocHost"), "one retained pinned arena")
				// the upload buffer, the layers' buffers once, a device
				// arena per bind
				assert.Equal(t, 1+layers+3, count(c, "aclrtMalloc"))
			} else {
				assert.Zero(t, count(c, "aclrtMallocHost"))
				assert.Equal(t, 1+3, count(c, "aclrtMalloc"))
			}
			assert.Equal(t, 3*perBind, count(c, "aclrtMemcpy"))
			assert.Equal(t, len(c)-1, slices.Index(c, "aclFinalize"), "one aclFinalize")
		})
	}
}

// TestAscendMemcpyFailure: a failing aclrtMemcpy fails the bind with its
// ACL error code, and everything allocated is still freed.
func TestAscendMemcpyFailure(t *testing.T) {
	calls := stubAscend(t)
	cfg := DefaultConfig()
	cfg.Device.Kind = "ascend"
	cfg.GraphPod = GraphPodEagerPinned
	t.Setenv("HBGH_STUB_FAIL_MEMCPY", "25") // inside the second bind's host_orch
	var buf bytes.Buffer
	res, err := RunModel(cfg, ModelOptions{Rounds: 3, Log: &buf})
	require.Error(t, err)
	var de *DeviceError
	require.True(t, errors.As(err, &de), "%v", err)
	assert.Equal(t, 507011, de.Code)
	assert.Contains(t, err.Error(), "aclrtMemcpy failed: ACL error 507011")
	require.NotNil(t, res)
	assert.Equal(t, 1, res.Binds, "the first bind completed")
	assert.Zero(t, res.ThreadsLeft)

	c := stubCalls(t, calls)
	assert.Contains(t, c, "aclrtMemcpy FAIL 507011")
	assert.Equal(t, count(c, "aclrtMalloc"), count(c, "aclrtFree"), "no device buffer leaks")
	assert.Equal(t, count(c, "aclrtMallocHost"), count(c, "aclrtFreeHost"), "no pinned buffer leaks")
	assert.Equal(t, "aclFinalize", c[len(c)-1])
}

// TestAscendBrokenLibrary: a library without the ACL symbols is refused
// with a message naming the library and the missing call.
func TestAscendBrokenLibrary(t *testing.T) {
	stubAscend(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib64", "libascendcl.so")
	require.NoError(t, os.MkdirAll(filepath.Dir(lib), 0o755))
	src := filepath.Join(dir, "empty.c")
	require.NoError(t, os.WriteFile(src, []byte("int hbgh_nothing(void) { return 0; }\n"), 0o644))
	out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", lib, src).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Setenv(AscendHomeEnv, dir)
	cfg := DefaultConfig()
	cfg.Device.Kind = "ascend"
	_, err = RunModel(cfg, ModelOptions{Rounds: 1, Log: &bytes.Buffer{}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), lib+" has no aclInit")
}
