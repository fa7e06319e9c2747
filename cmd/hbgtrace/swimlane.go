package main

import "github.com/spf13/cobra"

// PLACEHOLDER: replaced by the engineer who implements `hbgtrace swimlane`.
func newSwimlaneCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "swimlane LOG...",
		Short: "swimlane (not implemented yet)",
		RunE:  func(cmd *cobra.Command, args []string) error { return errNotImplemented },
	}
}
