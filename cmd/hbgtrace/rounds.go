package main

import "github.com/spf13/cobra"

// PLACEHOLDER: replaced by the engineer who implements `hbgtrace rounds`.
func newRoundsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "rounds LOG...",
		Short: "rounds (not implemented yet)",
		RunE:  func(cmd *cobra.Command, args []string) error { return errNotImplemented },
	}
}
