package journal

import (
	"strings"

	"github.com/hbgkit/hbgkit/runtimeharness"
)

// shellJoin returns argv as a command line a POSIX shell splits back into
// argv (runtimeharness.ShellQuote each word): the exact command of a
// report, to paste back.
func ShellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, w := range argv {
		out[i] = runtimeharness.ShellQuote(w)
	}
	return strings.Join(out, " ")
}
