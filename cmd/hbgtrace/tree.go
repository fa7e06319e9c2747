package main

import "github.com/spf13/cobra"

// PLACEHOLDER: replaced by the engineer who implements `hbgtrace tree`.
func newTreeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "tree LOG...",
		Short: "tree (not implemented yet)",
		RunE:  func(cmd *cobra.Command, args []string) error { return errNotImplemented },
	}
}
