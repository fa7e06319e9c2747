package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestHarnessFlagsAreTheSwitchTable(t *testing.T) {
	t.Parallel()
	cmd := NewCmdHarness(func(*HarnessOptions) error { return nil })
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)
	want := []string{"args-bytes", "delay-us", "device", "epoch", "graph-pod", "mirror", "output",
		"ranks", "recorders", "records-dir", "rounds", "workload"}
	assert.Equal(t, want, names)
	assert.Equal(t, "o", cmd.Flags().Lookup("output").Shorthand)
	// Every setting key of the arm spec has its flag.
	for _, k := range runtimeharness.Keys() {
		assert.NotNil(t, cmd.Flags().Lookup(flagName(k)), k)
	}
}

func TestHarnessOptionsFromFlags(t *testing.T) {
	t.Parallel()
	var got *HarnessOptions
	cmd := NewCmdHarness(func(o *HarnessOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--graph-pod", "current", "--mirror", "retained", "--rounds", "3",
		"-o", "x.log", "--records-dir", "recs", "--recorders", "ondemand"})
	require.NoError(t, cmd.Execute())
	require.NotNil(t, got)
	// Settings come in the canonical key order, whatever the flag order.
	assert.Equal(t, [][2]string{{"mirror", "retained"}, {"recorders", "ondemand"}, {"graph-pod", "current"}},
		got.Settings)
	assert.Equal(t, 3, got.Rounds)
	assert.Equal(t, "x.log", got.Output)
	assert.Equal(t, "recs", got.RecordsDir)

	cmd = NewCmdHarness(func(o *HarnessOptions) error { got = o; return nil })
	cmd.SetArgs([]string{}) // not nil: cobra then parses os.Args, the test binary's flags (-update)
	require.NoError(t, cmd.Execute())
	assert.Empty(t, got.Settings)
	assert.Equal(t, 5, got.Rounds)
	assert.Equal(t, "-", got.Output)
}

func TestHarnessWritesTheLogToStdout(t *testing.T) {
	t.Parallel()
	code, out, errText := runCLI("harness", "--rounds", "2", "--workload", "qwen3-14b-decode", "--epoch", "e2")
	require.Equal(t, 0, code, errText)
	assert.Empty(t, errText)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	assert.True(t, strings.HasPrefix(lines[0], "[stamp] hbgkit-harness embedded:workload=qwen3-14b-decode,"), lines[0])
	assert.Contains(t, lines[0], ",epoch=e2,")
	// One anchor per process: only the first run in this test process has it.
	assert.LessOrEqual(t, strings.Count(out, "[CLOCK_ANCHOR] v=1 pid="), 1)
	assert.Equal(t, 2, strings.Count(out, "bind phase=host_orch "))
	assert.Equal(t, 2, strings.Count(out, " tasks=47 "))
	assert.Equal(t, 2, strings.Count(out, " name=chip.run ts="))
	assert.Contains(t, out, " rec_cpu_ns=")
}

func TestHarnessOutputFileAndRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "bind.log")
	recs := filepath.Join(dir, "recs")
	code, out, errText := runCLI("harness", "--rounds", "3", "-o", log, "--records-dir", recs,
		"--mirror", "retained", "--args-bytes", "64KiB")
	require.Equal(t, 0, code, errText)
	assert.Empty(t, out)
	assert.Equal(t, "hbgbench: harness: wrote 3 binds to "+log+"\n", errText)
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, 6, strings.Count(string(b), " bytes=65536\n"), "args and host_view_close lines")
	r, err := os.ReadFile(filepath.Join(recs, runtimeharness.RecordsFile))
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(r), "\n"))
}

func TestHarnessExitStatus(t *testing.T) {
	t.Setenv("ASCEND_HOME_PATH", "")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"ascend without its library", []string{"--device", "ascend"}, 2,
			"hbgbench: harness: --device ascend: ASCEND_HOME_PATH is not set " +
				"(it names the CANN install whose lib64/libascendcl.so is loaded)\n"},
		{"cuda is gone", []string{"--device", "cuda"}, 2,
			"hbgbench: harness: --device cuda: want one of model, ascend\n"},
		{"three ranks", []string{"--ranks", "3"}, 2,
			"hbgbench: harness: --ranks 3: want 1 to 2\n"},
		{"nonsense mirror", []string{"--mirror", "sometimes"}, 2,
			"hbgbench: harness: --mirror sometimes: want one of per_bind, retained\n"},
		{"nonsense delay", []string{"--delay-us", "soon"}, 2,
			"hbgbench: harness: --delay-us soon: want an integer\n"},
		{"nonsense recorders", []string{"--recorders", "prewarm=65"}, 2,
			"hbgbench: harness: --recorders prewarm=65: want prewarm=N with N from 0 to 64, or ondemand\n"},
		{"zero rounds", []string{"--rounds", "0"}, 2,
			"hbgbench: harness: --rounds 0: want at least 1\nRun 'hbgbench harness --help' for usage.\n"},
		{"unknown flag", []string{"--colour", "red"}, 2,
			"hbgbench: unknown flag: --colour\nRun 'hbgbench harness --help' for usage.\n"},
		{"arguments", []string{"extra"}, 2, "hbgbench: unknown command \"extra\" for \"hbgbench harness\"\n"},
		{"unwritable output", []string{"--rounds", "1", "-o", "/nonexistent/dir/x.log"}, 1,
			"hbgbench: harness: open /nonexistent/dir/x.log: no such file or directory\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errText := runCLI(append([]string{"harness"}, tc.args...)...)
			assert.Equal(t, tc.code, code)
			assert.Empty(t, out, "no work before the refusal")
			assert.Equal(t, tc.want, errText)
		})
	}
}

func TestChildCommandIsHidden(t *testing.T) {
	t.Parallel()
	root := newRootCmd(nil)
	c, _, err := root.Find([]string{runtimeharness.ChildCommand})
	require.NoError(t, err)
	assert.True(t, c.Hidden)
	code, _, errText := runCLI(runtimeharness.ChildCommand, "--spec", "embedded:mirror=often")
	assert.Equal(t, 2, code)
	assert.Contains(t, errText, "mirror=often: want one of per_bind, retained")
	code, out, _ := runCLI("--help")
	assert.Equal(t, 0, code)
	assert.NotContains(t, out, runtimeharness.ChildCommand)
}

// TestHelpHygiene walks every visible command: Short and Example set, no
// tabs, help lines under 80 columns.
func TestHelpHygiene(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		t.Run(c.CommandPath(), func(t *testing.T) {
			assert.NotEmpty(t, c.Short)
			assert.NotEmpty(t, c.Example)
			for _, text := range []string{c.Short, c.Long, c.Example, c.UsageString()} {
				assert.NotContains(t, text, "\t")
				for _, line := range strings.Split(text, "\n") {
					assert.Less(t, len(line), 80, "%q", line)
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(nil))
}

// TestHarnessExamplesRun runs every example of the harness help (the part
// before a pipe) in a scratch directory.
func TestHarnessExamplesRun(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, line := range strings.Split(NewCmdHarness(nil).Example, "\n") {
		line = strings.TrimSpace(line)
		line, _, _ = strings.Cut(line, "|")
		args := strings.Fields(line)
		require.Equal(t, "hbgbench", args[0])
		t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
			code, out, errText := runCLI(args[1:]...)
			require.Equal(t, 0, code, errText)
			if !strings.Contains(line, " -o ") {
				assert.True(t, strings.HasPrefix(out, "[stamp] hbgkit-harness "))
			}
		})
	}
}
