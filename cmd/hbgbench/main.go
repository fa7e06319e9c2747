// Command hbgbench runs simpler's runtime, or the embedded model of its HBG
// bind path, and compares arms of it: ab and aa run interleaved campaigns,
// report re-analyses a campaign's journal, compare analyses captured logs
// unpaired, harness runs the embedded runtime model once and writes the
// runtime's log.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hbgkit/hbgkit/internal/buildinfo"
	"github.com/hbgkit/hbgkit/internal/flagsuggest"
	"github.com/hbgkit/hbgkit/internal/lineprefix"
	"github.com/hbgkit/hbgkit/internal/procgroup"
	"github.com/hbgkit/hbgkit/internal/termsafe"
	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/spf13/cobra"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == runtimeharness.ChildCommand {
		// An embedded arm's block: straight to the model, without building
		// the command tree, so the block's process starts as fast as it can.
		os.Exit(runtimeharness.ChildMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	// Daemons a block or a build starts are handed to this process when
	// their parent ends, for the campaign to kill (procgroup.Sweep).
	_ = procgroup.EnableSubreaper()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes hbgbench with args and returns the exit status: 0 on
// success, 1 on a clear error, 2 on a usage error or a setting that is not
// implemented yet.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(append([]string{"hbgbench"}, args...))
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintf(stderr, "hbgbench: %s\n", termsafe.Escape(err.Error()))
	var ue *usageError
	if errors.As(err, &ue) {
		if ue.cmd != nil {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", ue.cmd.CommandPath())
		}
		return 2
	}
	var ce *runtimeharness.ConfigError
	if errors.As(err, &ce) || isFlagError(err) {
		return 2
	}
	return 1
}

// newRootCmd builds hbgbench's command tree; argv is its command line,
// which ab, aa and compare write into their journals and reports.
func newRootCmd(argv []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "hbgbench",
		Short: "Run simpler's runtime or its embedded model, and compare arms",
		Long: `hbgbench runs interleaved A/B campaigns between two arms of simpler's
runtime (ab), calibrates their noise (aa), re-analyses a campaign's journal
(report), compares logs captured elsewhere (compare), and runs the
embedded model of the host_build_graph bind path once (harness).`,
		Example: `  hbgbench ab
  hbgbench aa --rounds 12
  hbgbench report c.jsonl --format markdown
  hbgbench compare --base old-*.log --head new-*.log
  hbgbench harness --rounds 5 -o bind.log`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{cmd: c, err: suggestFlag(c, err)}
	})
	root.Version = buildinfo.Read().Program("hbgbench")
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(NewCmdAb(argv, nil), NewCmdAA(argv, nil), NewCmdReport(nil), NewCmdCompare(argv, nil), NewCmdHarness(nil), newCmdChild())
	return root
}

// warnings returns w with "hbgbench: " put before each line a library
// package writes to it (the campaign's warnings and announcements carry
// no program name; lines indented under one continue it).
func warnings(w io.Writer) *lineprefix.Writer { return lineprefix.New(w, "hbgbench: ") }

// usageError is a command-line mistake: exit status 2 and a usage hint.
type usageError struct {
	cmd *cobra.Command
	err error
}

func (e *usageError) Error() string { return e.err.Error() }

func (e *usageError) Unwrap() error { return e.err }

// usagef is a usage error of cmd, its message prefixed with cmd's name.
func usagef(cmd *cobra.Command, format string, a ...any) error {
	return &usageError{cmd: cmd, err: fmt.Errorf(cmd.Name()+": "+format, a...)}
}

// exitError ends the program with code; its messages are already printed.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func isFlagError(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand",
		"accepts ", "requires at least", "invalid argument"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// newCmdChild is the hidden subcommand an EmbeddedRunner re-executes this
// binary with: it runs the model in a fresh process, the log on fd 3.
func newCmdChild() *cobra.Command {
	return &cobra.Command{
		Use:                runtimeharness.ChildCommand,
		Short:              "Run the embedded model for a parent hbgbench (internal)",
		Example:            "  (started by hbgbench itself)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			code := runtimeharness.ChildMain(args, cmd.OutOrStdout(), cmd.ErrOrStderr())
			if code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}

// suggestFlag adds to an unknown-flag error the flag of c it was likely
// meant to be (internal/flagsuggest, shared with hbgtrace).
func suggestFlag(c *cobra.Command, err error) error {
	return flagsuggest.Suggest(c.Flags(), err)
}
