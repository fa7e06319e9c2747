package main

import (
	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/spf13/cobra"
)

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
