package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// WriteTuned writes the design `hbgbench aa --tune --write` recommends
// into the recipe at path: block, block_stat and tuned (where the design
// came from), each replacing the top-level line that sets it or added
// before the first table. The other lines stay as they were; the file is
// written beside itself and renamed over it only once it reads back as a
// recipe, so a failure leaves it untouched. A file that does not exist is
// created.
func WriteTuned(path string, block int, blockStat, tuned string) error {
	old, err := os.ReadFile(path)
	mode := os.FileMode(0o644)
	switch {
	case err == nil:
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
	case os.IsNotExist(err):
	default:
		return err
	}
	text := setTopLevel(string(old), [][2]string{
		{"block", strconv.Itoa(block)},
		{"block_stat", strconv.Quote(blockStat)},
		{"tuned", strconv.Quote(tuned)},
	})
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hbgbench.toml.*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if _, err := LoadRecipe(tmp.Name()); err != nil {
		return fmt.Errorf("%s: the tuned recipe would not read back, left as it was: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// RecipePath returns the hbgbench.toml of the repository of repo ("":
// the current directory's), which need not exist yet; an error outside a
// repository.
func RecipePath(repo string) (string, error) {
	if repo == "" {
		repo = "."
	}
	root, err := RepoRoot(repo)
	if err != nil {
		return "", fmt.Errorf("%s is not in a git repository, so there is no hbgbench.toml to write: %w", repo, err)
	}
	return filepath.Join(root, RecipeFile), nil
}

var tableLine = regexp.MustCompile(`^\s*\[`)

// setTopLevel sets each key = value among the lines before text's first
// table: a line that sets the key is replaced, a missing key is added
// after the last of those lines.
func setTopLevel(text string, kvs [][2]string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	top := len(lines)
	for i, l := range lines {
		if tableLine.MatchString(l) {
			top = i
			break
		}
	}
	for _, kv := range kvs {
		re := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(kv[0]) + `"?\s*=`)
		line := kv[0] + " = " + kv[1]
		found := false
		for i := range top {
			if re.MatchString(lines[i]) {
				lines[i], found = line, true
				break
			}
		}
		if !found {
			at := top
			for at > 0 && strings.TrimSpace(lines[at-1]) == "" {
				at--
			}
			lines = append(lines[:at], append([]string{line}, lines[at:]...)...)
			top++
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
