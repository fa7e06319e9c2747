package main

import "github.com/spf13/cobra"

// PLACEHOLDER: replaced by the engineer who implements `hbgtrace phases`.
func newPhasesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "phases LOG...",
		Short: "phases (not implemented yet)",
		RunE:  func(cmd *cobra.Command, args []string) error { return errNotImplemented },
	}
}
