package main

import (
	"fmt"
	"slices"
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
	sweep := ""
	if f := cmd.Flags().Lookup("sweep"); f != nil {
		sweep = f.Value.String()
	}
	loadGiven := campaign.LoadGiven(cmd.Flags().Changed, sweep)
	for _, p := range r.Flags() {
		if cmd.Flags().Lookup(p[0]) == nil || (loadGiven && (p[0] == "load" || p[0] == "load-cmd")) {
			continue
		}
		if err := setFlag(p[0], p[1]); err != nil {
			return nil, nil, err
		}
	}
	if r.Tuned != "" && slices.ContainsFunc(set, func(s string) bool {
		return strings.HasPrefix(s, "block = ") || strings.HasPrefix(s, "block_stat = ")
	}) {
		set = append(set, "tuned: "+r.Tuned)
	}
	if !cmd.Flags().Changed("env") && len(r.Env) > 0 {
		if env, err = r.EnvSwitches(path); err != nil {
			return nil, nil, err
		}
		for _, kv := range env {
			set = append(set, "env "+kv+" (git arms only)")
		}
	}
	return set, env, nil
}
