package main

import "github.com/spf13/cobra"

// PLACEHOLDER: replaced by the engineer who implements `hbgtrace tpot`.
func newTpotCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "tpot LOG...",
		Short: "tpot (not implemented yet)",
		RunE:  func(cmd *cobra.Command, args []string) error { return errNotImplemented },
	}
}
