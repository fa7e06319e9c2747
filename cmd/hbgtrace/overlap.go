package main

import (
	"errors"
	"fmt"

	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/spf13/cobra"
)

// overlapOptions are the flags of `hbgtrace overlap`.
type overlapOptions struct {
	logInput
	requireHidden bool
}

// newOverlapCmd builds the overlap command. runF replaces overlapRun in tests; nil
// means overlapRun.
func newOverlapCmd(runF func(*overlapOptions) error) *cobra.Command {
	opts := &overlapOptions{}
	cmd := &cobra.Command{
		Use:   "overlap LOG...",
		Short: "Assert that each run's preparation overlaps the device work",
		Long: `overlap proves that run N+1's preparation (its chip.run.bind) overlaps
run N's device work (its chip.run.runner_run) on every process, that launches
stay in dispatch order, and that no run starts on the device before its
predecessor's claim release. It is strace_timing --assert-native-overlap.

On success it prints the number of adjacent pairs it checked; on the first
failed check it prints "native overlap assertion failed: <why>" on stderr and
exits with status 2. Legacy simpler_run* span names are accepted.`,
		Example: `  hbgtrace overlap run.log
  hbgtrace overlap --require-hidden spool/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWith(cmd, args, &opts.logInput, opts, runF, overlapRun)
		},
	}
	cmd.Flags().BoolVar(&opts.requireHidden, "require-hidden", false,
		"also fail when a preparation outlasts the device work")
	addMaxSpansFlag(cmd, &opts.logInput)
	return cmd
}

func overlapRun(opts *overlapOptions) error {
	log, err := readLog(opts.logInput)
	if err != nil {
		return err
	}
	printWarnings(opts.Stderr, log)
	invs := trace.GroupInvocations(trace.InvocationSpans(log.Spans))
	checks, err := phases.VerifyOverlap(invs, phases.OverlapOptions{RequireHidden: opts.requireHidden})
	var oe *phases.OverlapError
	if errors.As(err, &oe) {
		return &exitError{code: 2, text: oe.Error() + "\n"}
	}
	if err != nil {
		return fmt.Errorf("overlap: %w", err)
	}
	return report.WriteOverlap(opts.Stdout, len(checks))
}
