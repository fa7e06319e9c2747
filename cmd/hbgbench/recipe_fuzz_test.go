package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/campaign"
)

// FuzzRecipe feeds arbitrary text to the hbgbench.toml reader and applies
// what it accepts to the ab command's flags: an error naming the file, or
// flags set, never a panic.
func FuzzRecipe(f *testing.F) {
	f.Add("build = \"make\"\nrun = \"./run.sh {rounds} {out}\"\nrounds = 10\nmargin = \"1%\"\n[env]\nA = \"1\"\n")
	f.Add("margin = 0.02\nmax_fail = 1\ntimeout = \"10m\"\n")
	f.Add("rounds = -3\nblock = 0\ncold = 9\n")
	f.Add("[env]\n\"K=V\" = \"x\"\n")
	f.Add("load = 2\nload_cmd = \"stress --cpu 2\"\n")
	f.Add("load = 99999999999\n")
	f.Fuzz(func(t *testing.T, body string) {
		dir := t.TempDir()
		p := filepath.Join(dir, campaign.RecipeFile)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := campaign.LoadRecipe(p)
		if err != nil {
			if !strings.HasPrefix(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		cmd := NewCmdAb(nil, func(*AbOptions) error { return nil })
		_, _, _ = applyRecipe(cmd, r, p)
	})
}
