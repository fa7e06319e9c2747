// Package flagsuggest turns a mistyped flag into a hint: the one place
// both commands (hbgbench and hbgtrace) name the flag an unknown one was
// likely meant to be.
package flagsuggest

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// Suggest adds to an unknown-flag error the flag of fs it was likely
// meant to be ("did you mean --rounds?"): the nearest visible name by
// edit distance, within a third of its length (at least 2), or the one it
// begins when it is 3 characters or more. Any other error is returned
// unchanged.
func Suggest(fs *pflag.FlagSet, err error) error {
	if err == nil {
		return nil
	}
	_, bad, ok := strings.Cut(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	bad, _, _ = strings.Cut(bad, "=")
	bad, _, _ = strings.Cut(bad, " ")
	best, dist := "", 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(bad, f.Name)
		if strings.HasPrefix(f.Name, bad) && len(bad) >= 3 {
			d = 1
		}
		if best == "" || d < dist {
			best, dist = f.Name, d
		}
	})
	if best == "" || dist > max(2, len(best)/3) {
		return err
	}
	return fmt.Errorf("%w (did you mean --%s?)", err, best)
}

// editDistance is the Levenshtein distance of a and b, bounded in cost by
// the flag names' lengths (a is cut at 64 bytes: no flag is longer).
func editDistance(a, b string) int {
	if len(a) > 64 {
		a = a[:64]
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
