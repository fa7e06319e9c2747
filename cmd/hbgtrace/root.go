package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/hbgkit/hbgkit/internal/buildinfo"
	"github.com/hbgkit/hbgkit/internal/flagsuggest"
	"github.com/hbgkit/hbgkit/internal/hugeheap"
	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/spf13/cobra"
)

// run executes hbgtrace with args and returns the exit status: 0 on success,
// 1 on a clear error, 2 on a usage error or a failed assertion.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	failed, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.text != "" {
			fmt.Fprint(stderr, ee.text)
		}
		return ee.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "hbgtrace: %v\n", ue.err)
		if ue.cmd != nil {
			fmt.Fprint(stderr, ue.cmd.UsageString())
		}
		return 2
	}
	if isFlagError(err) {
		fmt.Fprintf(stderr, "hbgtrace: %v\n", err)
		if failed != nil {
			fmt.Fprint(stderr, failed.UsageString())
		}
		return 2
	}
	fmt.Fprintf(stderr, "hbgtrace: %v\n", err)
	return 1
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "hbgtrace",
		Short: "Read simpler host logs: timing tables, bind phases, traces",
		Long: `hbgtrace reads the host logs of simpler's runtime ([STRACE] spans,
bind phase= lines, clock anchors) and prints the tables people paste into
pull requests. LOG may be a file, several files read as one stream, a
directory of host.*.log files, - for standard input, or any of these
gzip-compressed.`,
		Example: `  hbgtrace rounds log.txt
  hbgtrace phases --rounds 6 bind.log
  hbgtrace tpot spool/`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version prints the module version and VCS revision the
		// binary was built from (runtime/debug.ReadBuildInfo), in the
		// form hbgbench --version prints.
		Version: buildinfo.Read().Program("hbgtrace"),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{cmd: c, err: flagsuggest.Suggest(c.Flags(), err)}
	})
	root.AddCommand(
		newTpotCmd(nil),
		newRoundsCmd(nil),
		newTreeCmd(nil),
		newOverlapCmd(nil),
		newPhasesCmd(nil),
		newTraceCmd(nil),
		newSwimlaneCmd(nil),
		newGapsCmd(nil),
		newLanesCmd(nil),
		newPprofCmd(nil),
		newOrchCmd(nil),
	)
	for _, c := range root.Commands() {
		wrapArgsAsUsage(c)
	}
	return root
}

// wrapArgsAsUsage makes a wrong number of arguments a usage error of c, so
// it prints c's usage and exits 2.
func wrapArgsAsUsage(c *cobra.Command) {
	check := c.Args
	if check == nil {
		return
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return &usageError{cmd: cmd, err: err}
		}
		return nil
	}
}

// exitError ends the program with code after printing text verbatim to
// stderr; it carries messages whose exact text the reference fixes.
type exitError struct {
	code int
	text string
}

func (e *exitError) Error() string { return fmt.Sprintf("exit %d: %s", e.code, e.text) }

// usageError is a command-line mistake: the message, then the usage, exit 2.
type usageError struct {
	cmd *cobra.Command
	err error
}

func (e *usageError) Error() string { return e.err.Error() }

func isFlagError(err error) bool {
	// cobra reports unknown commands and wrong argument counts as plain
	// errors; they are usage errors too.
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// readLog reads the logs of in (see trace.Inputs; "-" is standard input)
// as one stream, holding at most in.maxSpans spans and phase lines.
func readLog(in logInput) (*trace.Log, error) {
	srcs, err := inputs(in.ioStreams, in.logs)
	if err != nil {
		return nil, err
	}
	pr := startRead(in.Stderr, srcs, hugeheap.Whole)
	defer pr.finish()
	l, err := trace.ReadLogOptions(srcs, trace.ReadOptions{Workers: runtime.GOMAXPROCS(0), Progress: pr.counter(), MaxSpans: in.maxSpans})
	return l, tooManySpans(err, "--max-spans")
}

// inputs expands args into sources (trace.InputsWarn) and prints on
// stderr the warnings about directory entries it skipped.
func inputs(st ioStreams, args []string) ([]trace.Source, error) {
	srcs, warns, err := trace.InputsWarn(args, st.Stdin)
	for _, w := range warns {
		fmt.Fprintln(st.Stderr, w)
	}
	return srcs, err
}

// printWarnings writes the log's warnings to stderr, one per line.
func printWarnings(stderr io.Writer, l *trace.Log) {
	for _, w := range l.Warnings() {
		fmt.Fprintln(stderr, w)
	}
}

// Output formats of the table commands.
const (
	formatText     = report.FormatText
	formatMarkdown = report.FormatMarkdown
	formatJSON     = report.FormatJSON
	formatCSV      = report.FormatCSV
)

// addFormatFlag adds --format to a table command.
func addFormatFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "format", formatText, "output format: text|markdown|json|csv")
}

// checkFormat validates a --format value.
func checkFormat(cmd *cobra.Command, f string) error {
	switch f {
	case formatText, formatMarkdown, formatJSON, formatCSV:
		return nil
	}
	return &usageError{cmd: cmd, err: fmt.Errorf("invalid --format %q: want text, markdown, json or csv", f)}
}
