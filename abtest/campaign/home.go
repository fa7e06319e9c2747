package campaign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hbgkit/hbgkit/abtest/journal"
)

// HomeDir is the directory, in the repository root (or the current
// directory outside a repository), where campaigns keep their journals and
// block logs by default. It holds a .gitignore of "*", as pytest's cache
// does, so that git ignores it without the user's help.
const HomeDir = ".hbgbench"

// Home returns the campaign home of repo, or of the repository holding the
// current directory when repo is "", or of the current directory outside
// any repository. The path is absolute.
func Home(repo string) (string, error) {
	if repo == "" {
		if root, err := RepoRoot("."); err == nil {
			repo = root
		} else {
			wd, err := os.Getwd()
			if err != nil {
				return "", fmt.Errorf("finding the campaign home: %w", err)
			}
			repo = wd
		}
	}
	abs, err := filepath.Abs(repo)
	if err != nil {
		return "", fmt.Errorf("finding the campaign home: %w", err)
	}
	home := filepath.Join(abs, HomeDir)
	// A repository may commit a .hbgbench that is a symbolic link, which
	// would send every campaign's journal, block logs and .gitignore
	// wherever it points: the home is a directory of its own or nothing.
	if fi, err := os.Lstat(home); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(home)
		return "", fmt.Errorf("%s is a symbolic link (to %s): hbgbench keeps its campaigns only in a directory of its own there; remove the link, or name the journal with --journal", home, target)
	}
	return home, nil
}

// makeHome creates a campaign home with its .gitignore.
func makeHome(home string) error {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return fmt.Errorf("creating the campaign home: %w", err)
	}
	ignore := filepath.Join(home, ".gitignore")
	if _, err := os.Lstat(ignore); errors.Is(err, os.ErrNotExist) {
		body := "# Written by hbgbench: its campaigns' journals and block logs, never committed.\n*\n"
		if err := os.WriteFile(ignore, []byte(body), 0o644); err != nil {
			return fmt.Errorf("creating the campaign home: %w", err)
		}
	}
	return nil
}

// newJournalName is the name of a new campaign's journal in its home:
// hbgbench-<UTC second>.jsonl, or for the n-th campaign started in that
// second (n ≥ 2) hbgbench-<UTC second>_n.jsonl, which sorts after it.
func newJournalName(now time.Time, n int) string {
	name := "hbgbench-" + now.UTC().Format("20060102T150405Z")
	if n > 1 {
		name += fmt.Sprintf("_%d", n)
	}
	return name + ".jsonl"
}

// reserveJournal creates, empty and exclusively, the journal of a new
// campaign in home, so that two campaigns started in the same second get
// two journals (an empty journal is taken as absent when it is opened).
func reserveJournal(home string, now time.Time) (string, error) {
	for n := 1; n <= 1000; n++ {
		p := filepath.Join(home, newJournalName(now, n))
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("creating the journal: %w", err)
		}
		return p, f.Close()
	}
	return "", fmt.Errorf("creating the journal: 1000 campaigns started in %s this second", home)
}

// NewestJournal returns the newest journal in a campaign home, by the UTC
// time its name carries (then by modification time).
func NewestJournal(home string) (string, error) {
	paths, err := filepath.Glob(filepath.Join(home, "hbgbench-*.jsonl"))
	if err != nil {
		return "", err
	}
	if len(paths) == 0 {
		return "", fmt.Errorf("no campaign journal in %s: name one", home)
	}
	sort.Strings(paths)
	return paths[len(paths)-1], nil
}

// BlockDir is where a journal's block logs go: the journal's name
// without .jsonl, plus ".d" (x.jsonl: x.d); a journal not named .jsonl
// keeps its whole name (x.json: x.json.d), so that two journals never
// share one. Open locks it besides.
func BlockDir(journal string) string {
	return strings.TrimSuffix(journal, ".jsonl") + ".d"
}

// NewestWithRounds returns the newest journal in a campaign home that has
// a complete round, what a report can say something of, and a line that
// says which it took and how many newer journals it passed over
// (campaigns that failed, or are still in their first round). An error
// when none has a round.
func NewestWithRounds(home string) (path, which string, err error) {
	paths, err := filepath.Glob(filepath.Join(home, "hbgbench-*.jsonl"))
	if err != nil {
		return "", "", err
	}
	if len(paths) == 0 {
		return "", "", fmt.Errorf("no campaign journal in %s: name one", home)
	}
	sort.Strings(paths)
	for i := len(paths) - 1; i >= 0; i-- {
		j, err := journal.ReadJournal(paths[i])
		if err != nil {
			continue
		}
		for _, r := range j.Rounds {
			if r.Status != journal.RoundOK {
				continue
			}
			if skipped := len(paths) - 1 - i; skipped > 0 {
				return paths[i], fmt.Sprintf("report of %s, the newest campaign with a complete round (%d newer without one)", paths[i], skipped), nil
			}
			return paths[i], "report of " + paths[i], nil
		}
	}
	return "", "", fmt.Errorf("no campaign journal in %s has a complete round (%d journals): name one", home, len(paths))
}
