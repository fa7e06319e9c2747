package runtimeharness

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseTemplate feeds arbitrary templates to the scanner: it never
// panics; its pieces are the template; a refusal names a placeholder of
// the template; and the script it builds reads as the template did, with
// every placeholder gone: the references it put in do not change the
// quoting of what follows them.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{
		`run.sh {rounds} {out}`,
		`cd {out} && {worktree}/run.sh --rounds {rounds} .`,
		`echo "{out}" x"{out}"/y '{out}'`,
		"ls `echo {out}`",
		`echo "$(cat "{out}/x") {out}" $(( {rounds} * 2 ))`,
		"a # it's {out}\n{out}",
		`echo \{out} "\"{out}" ${out} ${X:-{out}}`,
		`echo "$(echo '{out}')"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tmpl string) {
		pieces, err := parseTemplate(tmpl)
		if err != nil {
			var te *TemplateError
			if !errors.As(err, &te) || !strings.Contains(tmpl, te.Placeholder) {
				t.Fatalf("%q: refused with %v", tmpl, err)
			}
			return
		}
		var text strings.Builder
		for _, p := range pieces {
			text.WriteString(p.text)
		}
		if text.String() != tmpl {
			t.Fatalf("%q: pieces make %q", tmpl, text.String())
		}
		s := script(pieces)
		again, err := parseTemplate(s)
		if err != nil {
			t.Fatalf("%q: its script %q is refused: %v", tmpl, s, err)
		}
		for _, p := range again {
			if p.ph >= 0 {
				t.Fatalf("%q: its script %q still has %s", tmpl, s, p.text)
			}
		}
	})
}
