package abtest

import "strings"

// shellSafe reports whether a word needs no quoting for a POSIX shell:
// letters, digits and _@%+=:,./- only, and not empty.
func shellSafe(w string) bool {
	if w == "" {
		return false
	}
	for _, c := range w {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("_@%+=:,./-", c):
		default:
			return false
		}
	}
	return true
}

// shellQuote returns w as one word of a POSIX shell command line: as it
// is when it is plain, else in single quotes, where an embedded single
// quote closes them, is written escaped (\') and opens them again.
func shellQuote(w string) string {
	if shellSafe(w) {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// shellJoin returns argv as a command line a POSIX shell splits back into
// argv: the exact command of a report, to paste back.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, w := range argv {
		out[i] = shellQuote(w)
	}
	return strings.Join(out, " ")
}
