package main

import "github.com/spf13/cobra"

// PLACEHOLDER: replaced by the engineer who implements `hbgtrace overlap`.
func newOverlapCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "overlap LOG...",
		Short: "overlap (not implemented yet)",
		RunE:  func(cmd *cobra.Command, args []string) error { return errNotImplemented },
	}
}
