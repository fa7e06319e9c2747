package main

import "github.com/spf13/cobra"

// PLACEHOLDER: replaced by the engineer who implements `hbgtrace trace`.
func newTraceCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "trace LOG...",
		Short: "trace (not implemented yet)",
		RunE:  func(cmd *cobra.Command, args []string) error { return errNotImplemented },
	}
}
