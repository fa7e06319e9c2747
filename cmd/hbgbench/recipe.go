package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/spf13/cobra"
)

// applyRecipe sets every flag the recipe gives and the command line did
// not, through the flag itself so that its parsing and checks apply. It
// returns what it set ("rounds = 8"), and the [env] switches, which the
// command line's --env replaces whole.
func applyRecipe(cmd *cobra.Command, r *campaign.Recipe, path string) (set []string, env []string, err error) {
	setFlag := func(name, value string) error {
		if value == "" || cmd.Flags().Changed(name) {
			return nil
		}
		if err := cmd.Flags().Set(name, value); err != nil {
			return &campaign.RecipeError{File: path, Key: strings.ReplaceAll(name, "-", "_"), Msg: err.Error()}
		}
		set = append(set, fmt.Sprintf("%s = %s", strings.ReplaceAll(name, "-", "_"), value))
		return nil
	}
	for _, p := range r.Flags() {
		if cmd.Flags().Lookup(p[0]) == nil {
			continue
		}
		if err := setFlag(p[0], p[1]); err != nil {
			return nil, nil, err
		}
	}
	if !cmd.Flags().Changed("env") && len(r.Env) > 0 {
		keys := make([]string, 0, len(r.Env))
		for k := range r.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "" || strings.Contains(k, "=") {
				return nil, nil, &campaign.RecipeError{File: path, Key: "env", Msg: fmt.Sprintf("%q is not a variable name", k)}
			}
			env = append(env, k+"="+r.Env[k])
			set = append(set, fmt.Sprintf("env %s=%s (git arms only)", k, r.Env[k]))
		}
	}
	return set, env, nil
}
