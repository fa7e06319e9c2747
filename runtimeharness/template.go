package runtimeharness

import (
	"fmt"
	"strings"
)

// A placeholder of a command template and the environment variable that
// carries its value to the command.
type placeholder struct {
	name string // "{out}"
	env  string // "HBGBENCH_OUT"
}

// The placeholders of a command template. Each block's command gets the
// variables in its environment, whether the template names them or not.
var placeholders = []placeholder{
	{"{worktree}", "HBGBENCH_WORKTREE"},
	{"{rounds}", "HBGBENCH_ROUNDS"},
	{"{out}", "HBGBENCH_OUT"},
}

// Where a placeholder stands, as sh reads the template.
type quoting int

const (
	bare   quoting = iota // unquoted: the value must be quoted
	double                // inside "...": the quotes are there already
	arith                 // inside $((...)): a number, never split
)

// A piece of a parsed template: literal text, or a placeholder (ph >= 0)
// and the quoting it stands in.
type piece struct {
	text string
	ph   int
	q    quoting
}

// A TemplateError says a placeholder stands where no substitution can be
// made safe: inside single quotes, where the shell expands nothing, or
// inside backquotes, whose contents are parsed again.
type TemplateError struct {
	Template    string
	Placeholder string // "{out}"
	Where       string // "single quotes", "backquotes"
}

func (e *TemplateError) Error() string {
	fix := fmt.Sprintf(`write it bare (%s) or inside double quotes ("%s")`, e.Placeholder, e.Placeholder)
	if e.Where == "backquotes" {
		fix = "use $(...) instead of backquotes"
	}
	env := ""
	for _, p := range placeholders {
		if p.name == e.Placeholder {
			env = p.env
		}
	}
	return fmt.Sprintf(`command template %q: %s stands inside %s, where it cannot be filled in safely; %s, or read "$%s" from the environment`,
		e.Template, e.Placeholder, e.Where, fix, env)
}

// CheckTemplate reports whether every placeholder of a command template
// can be filled in safely: none stands inside single quotes or backquotes.
func CheckTemplate(template string) error {
	_, err := parseTemplate(template)
	return err
}

// A frame of the scanner's stack: a quoting context and, for $( and $((,
// the parentheses opened inside it.
type frame struct {
	kind  byte // 'b' bare (top level or $(...)), '"', '`', 'a' $((...))
	sub   bool // a 'b' frame opened by $(
	depth int
}

// parseTemplate splits a template into literal text and placeholders,
// tracking sh quoting: backslash escapes, single and double quotes,
// backquotes, $(...) (a new unquoted context, also inside double quotes),
// $((...)) and # comments. It does not follow here-documents or case
// patterns inside $(...); a mistake there can only put a placeholder in the
// wrong one of the two safe forms (see script), never run a value as code.
// A placeholder after a backslash is left as it is, and so is ${out}.
func parseTemplate(t string) ([]piece, error) {
	var out []piece
	lit := 0 // start of the pending literal text
	stack := []frame{{kind: 'b'}}
	flush := func(i int) {
		if i > lit {
			out = append(out, piece{text: t[lit:i], ph: -1})
		}
	}
	for i := 0; i < len(t); {
		top := &stack[len(stack)-1]
		c := t[i]
		if p := placeholderAt(t, i); p >= 0 {
			name := placeholders[p].name
			q := bare
			switch top.kind {
			case '`':
				return nil, &TemplateError{Template: t, Placeholder: name, Where: "backquotes"}
			case '"':
				q = double
			case 'a':
				q = arith
			}
			flush(i)
			out = append(out, piece{text: name, ph: p, q: q})
			i += len(name)
			lit = i
			continue
		}
		switch top.kind {
		case 'b':
			switch {
			case c == '\\':
				i += 2
				continue
			case c == '\'':
				end := strings.IndexByte(t[i+1:], '\'')
				quoted := t[i+1:]
				if end >= 0 {
					quoted = quoted[:end]
				}
				for _, p := range placeholders {
					if strings.Contains(quoted, p.name) {
						return nil, &TemplateError{Template: t, Placeholder: p.name, Where: "single quotes"}
					}
				}
				i += 1 + len(quoted) + 1
				continue
			case c == '"':
				stack = append(stack, frame{kind: '"'})
			case c == '`':
				stack = append(stack, frame{kind: '`'})
			case c == '$' && strings.HasPrefix(t[i:], "$("):
				f, n := substitution(t[i:])
				stack = append(stack, f)
				i += n
				continue
			case c == '(' && top.sub:
				top.depth++
			case c == ')' && top.sub:
				if top.depth == 0 {
					stack = stack[:len(stack)-1]
				} else {
					top.depth--
				}
			case c == '#' && (i == 0 || strings.IndexByte(" \t\n;&|()", t[i-1]) >= 0):
				// A comment: nothing in it is expanded.
				end := strings.IndexByte(t[i:], '\n')
				if end < 0 {
					end = len(t) - i
				}
				i += end
				continue
			}
		case '"':
			switch {
			case c == '\\':
				i += 2
				continue
			case c == '"':
				stack = stack[:len(stack)-1]
			case c == '`':
				stack = append(stack, frame{kind: '`'})
			case c == '$' && strings.HasPrefix(t[i:], "$("):
				f, n := substitution(t[i:])
				stack = append(stack, f)
				i += n
				continue
			}
		case '`':
			switch c {
			case '\\':
				i += 2
				continue
			case '`':
				stack = stack[:len(stack)-1]
			}
		case 'a':
			switch {
			case c == '(':
				top.depth++
			case c == ')' && top.depth > 0:
				top.depth--
			case c == ')' && strings.HasPrefix(t[i:], "))"):
				stack = stack[:len(stack)-1]
				i += 2
				continue
			}
		}
		i++
	}
	flush(len(t))
	return out, nil
}

// placeholderAt returns the index of the placeholder at t[i:], or -1. A
// "{out}" right after "$" is the shell's ${out}, not a placeholder.
func placeholderAt(t string, i int) int {
	if t[i] != '{' || i > 0 && t[i-1] == '$' {
		return -1
	}
	for p, ph := range placeholders {
		if strings.HasPrefix(t[i:], ph.name) {
			return p
		}
	}
	return -1
}

// script returns the command sh runs: each placeholder becomes a reference
// to its environment variable that is right where it stands, so no value is
// ever parsed as shell text: "${HBGBENCH_OUT}" bare (quoted, so a space
// does not split it), ${HBGBENCH_OUT} inside double quotes or $((...)).
func script(pieces []piece) string {
	var b strings.Builder
	for _, p := range pieces {
		switch {
		case p.ph < 0:
			b.WriteString(p.text)
		case p.q == bare:
			b.WriteString(`"${` + placeholders[p.ph].env + `}"`)
		default:
			b.WriteString(`${` + placeholders[p.ph].env + `}`)
		}
	}
	return b.String()
}

// display returns the command with the values written in, quoted for
// where each stands, so that pasted into a shell it runs what the block
// ran: the [stamp] form.
func display(pieces []piece, values []string) string {
	var b strings.Builder
	for _, p := range pieces {
		switch {
		case p.ph < 0:
			b.WriteString(p.text)
		case p.q == double:
			b.WriteString(doubleQuoteEscaper.Replace(values[p.ph]))
		default:
			b.WriteString(ShellQuote(values[p.ph]))
		}
	}
	return b.String()
}

// doubleQuoteEscaper escapes the characters that keep a meaning inside
// double quotes.
var doubleQuoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")

// substitution returns the frame that the "$((" (arithmetic) or "$("
// (command substitution) at the start of t opens, and its length.
func substitution(t string) (frame, int) {
	if strings.HasPrefix(t, "$((") {
		return frame{kind: 'a'}, 3
	}
	return frame{kind: 'b', sub: true}, 2
}
