// Package deploy holds the recipes that run hbgbench shards under a
// scheduler (slurm/, kubernetes/; docs/ab-operations.md "Shards: one campaign over many cards and hosts") and the tests that
// run them: the Slurm recipe on a one-node Slurm started by the test, the
// Kubernetes manifest decoded against the batch/v1 Job fields it uses.
package deploy
