package outfile

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helperEnv makes the test binary write one file and exit: 0 written, 3
// refused (the error on stderr). The read-only test runs it as another
// user when it runs as root.
const helperEnv = "OUTFILE_TEST_WRITE"

func TestMain(m *testing.M) {
	if path := os.Getenv(helperEnv); path != "" {
		if err := Write(path, nil, writeText("new")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// shellWrites reports whether the shell's > may write path, run with the
// credentials cred (nil: ours); it leaves path as it was.
func shellWrites(t *testing.T, path string, cred *syscall.Credential) bool {
	t.Helper()
	// ">>" opens for writing as ">" does, without truncating.
	cmd := exec.Command("/bin/sh", "-c", `: >> "$1"`, "sh", path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	return cmd.Run() == nil
}

// TestWriteReadOnlyFileAsTheShellWould: a 0444 file in a writable
// directory is refused where > is refused (any user but root) and written
// where > writes it (root), and in both cases the outcome is the shell's.
func TestWriteReadOnlyFileAsTheShellWould(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX permissions")
	}
	p := filepath.Join(t.TempDir(), "ro.json")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o444))
	require.NoError(t, os.Chmod(p, 0o444))
	root := os.Geteuid() == 0
	require.Equal(t, root, shellWrites(t, p, nil), "> writes a 0444 file exactly when we are root")

	err := Write(p, nil, writeText("new"))
	got, rerr := os.ReadFile(p)
	require.NoError(t, rerr)
	st, serr := os.Stat(p)
	require.NoError(t, serr)
	assert.Equal(t, os.FileMode(0o444), st.Mode().Perm(), "the mode is kept either way")
	if root {
		require.NoError(t, err, "root writes a 0444 file, as > does")
		assert.Equal(t, "new", string(got))
		return
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), p)
	assert.Contains(t, err.Error(), "may not be written")
	assert.Equal(t, "old", string(got), "the read-only file is left as it was")
	assert.Error(t, Check([]string{p}, nil), "Check refuses it before any work")
}

// TestWriteRootsReadOnlyFileAsAnotherUser is the reported case: a
// root-owned 0444 file in a world-writable directory, written by another
// user, whom > refuses. Only root can set it up; as any other user the
// test above covers the refusal.
func TestWriteRootsReadOnlyFileAsAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 || runtime.GOOS != "linux" {
		t.Skip("needs root to run as another user; TestWriteReadOnlyFileAsTheShellWould covers the refusal")
	}
	// t.TempDir's parent is 0700: open a directory everyone may enter.
	top, err := os.MkdirTemp("", "outfile-nobody-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(top) })
	require.NoError(t, os.Chmod(top, 0o755))
	dir := filepath.Join(top, "shared")
	require.NoError(t, os.Mkdir(dir, 0o777))
	require.NoError(t, os.Chmod(dir, 0o777))
	p := filepath.Join(dir, "ro.json")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o444))
	require.NoError(t, os.Chmod(p, 0o444))
	// A copy of this test binary the other user may run.
	exe := filepath.Join(top, "outfile.test")
	src, err := os.Open(os.Args[0])
	require.NoError(t, err)
	defer src.Close()
	dst, err := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	require.NoError(t, err)
	require.NoError(t, dst.Close())

	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	require.False(t, shellWrites(t, p, nobody), "> refuses the file to another user")
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), helperEnv+"="+p)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "%s", out)
	assert.Equal(t, 3, ee.ExitCode(), "%s", out)
	assert.Contains(t, string(out), p+": the file may not be written (permission denied)")
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "old", string(got), "the file is left as it was")
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, ents, 1, "no temp file is left")
}

// TestWriteDanglingSymlinkWritesItsTarget: > through a dangling link
// creates the file it names and leaves the link; so does -o.
func TestWriteDanglingSymlinkWritesItsTarget(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges")
	}
	cases := []struct {
		name   string
		links  [][2]string // link name, what it points to, made in order
		out    string      // the -o name
		target string      // the file that must be written
	}{
		{"relative", [][2]string{{"l", "t.json"}}, "l", "t.json"},
		{"absolute", [][2]string{{"l", "{dir}/t.json"}}, "l", "t.json"},
		{"into a directory", [][2]string{{"l", "sub/t.json"}}, "l", "sub/t.json"},
		{"a chain", [][2]string{{"l1", "l2"}, {"l2", "sub/t.json"}}, "l1", "sub/t.json"},
		{"relative to the link's directory", [][2]string{{"sub/l", "../t.json"}}, "sub/l", "t.json"},
		{"through a linked directory", [][2]string{{"sub/l", "../t.json"}, {"sl", "sub"}}, "sl/l", "t.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
			for _, l := range tc.links {
				to := l[1]
				if to == "{dir}/t.json" {
					to = filepath.Join(dir, "t.json")
				}
				require.NoError(t, os.Symlink(to, filepath.Join(dir, l[0])))
			}
			if tc.name != "absolute" { // an absolute link in a copy points back here
				assertShellWrites(t, dir, tc.out, tc.target)
			}

			require.NoError(t, Write(filepath.Join(dir, tc.out), nil, writeText("new")))
			got, err := os.ReadFile(filepath.Join(dir, tc.target))
			require.NoError(t, err, "%s is written", tc.target)
			assert.Equal(t, "new", string(got))
			for _, l := range tc.links {
				fi, err := os.Lstat(filepath.Join(dir, l[0]))
				require.NoError(t, err)
				assert.True(t, fi.Mode()&os.ModeSymlink != 0, "%s stays a link", l[0])
			}
		})
	}
}

// assertShellWrites checks, in a copy of dir, that the shell's > on out
// writes target: the behaviour Write must match.
func assertShellWrites(t *testing.T, dir, out, target string) {
	t.Helper()
	shellDir := t.TempDir()
	require.NoError(t, exec.Command("cp", "-a", dir+"/.", shellDir).Run())
	require.NoError(t, exec.Command("/bin/sh", "-c", `printf new > "$1"`, "sh", filepath.Join(shellDir, out)).Run())
	sh, err := os.ReadFile(filepath.Join(shellDir, target))
	require.NoError(t, err, "the shell wrote %s", target)
	require.Equal(t, "new", string(sh))
}
