// Package termsafe makes text that came from outside the program — a
// repository's recipe, a command line, another host's journal, a log —
// safe to print: every character that a terminal acts on instead of
// showing is written as a visible escape, so a recipe's
// "curl … | sh \x1b[2K\x1b[1A\r build = make" prints as that, not as
// "build = make". Newlines and tabs stay.
//
// It is applied where text leaves hbgbench for a reader, in one place
// per channel (docs/ab-reference.md "Faults and security"): the report
// writers (document.ErrWriter: text, markdown, benchfmt; csv and json
// escape by their own rules), the lines library packages write to stderr
// (lineprefix), and the error line of main.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// unsafe reports whether r is acted on by a terminal or reorders what
// follows it: the C0 controls but newline and tab, DEL, the C1 controls,
// the line and paragraph separators, and the bidirectional controls (the
// "Trojan Source" characters).
func unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == 0x2028 || r == 0x2029 || r == 0x061c || r == 0x200e || r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Needs reports whether s holds anything Escape changes.
func Needs(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafe(r) {
			return true
		}
		i += n
	}
	return false
}

// Escape returns s with every unsafe character written as Go writes it in
// a quoted string (\x1b, \r, \u202e) and every byte that is not UTF-8 as
// \xNN; s itself when there is none.
func Escape(s string) string {
	if !Needs(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafe(r):
			switch {
			case r == '\r':
				b.WriteString(`\r`)
			case r < 0x80:
				fmt.Fprintf(&b, `\x%02x`, r)
			default:
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// EscapeJSON returns the JSON text js with every unsafe character that
// encoding/json leaves as it is (the C1, separator and bidirectional
// controls; it escapes the C0 ones itself) written as a \uXXXX escape,
// which a JSON reader decodes to the same character. Outside its strings
// JSON text is ASCII, so the characters can only be inside strings.
func EscapeJSON(js string) string {
	if !Needs(js) {
		return js
	}
	var b strings.Builder
	b.Grow(len(js) + 16)
	for _, r := range js {
		if r >= 0x80 && unsafe(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
