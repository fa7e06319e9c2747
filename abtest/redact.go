package abtest

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
)

// Redaction placeholders.
const (
	RedactedHost = "<host>"
	RedactedPath = "<path>"
)

// absPath matches an absolute path after a start, a space, a quote, = or :.
var absPath = regexp.MustCompile(`(^|[\s'"=:,(\[])(/[^\s'"=:,)\]]*)`)

// hostField matches host=NAME in a stamp.
var hostField = regexp.MustCompile(`\bhost=\S+`)

// A redactor drops host names and absolute paths from text.
type redactor struct{ hosts []*regexp.Regexp }

func newRedactor(hosts ...string) *redactor {
	r := &redactor{}
	for _, h := range hosts {
		if h != "" && h != "unknown" {
			r.hosts = append(r.hosts, regexp.MustCompile(`\b`+regexp.QuoteMeta(h)+`\b`))
		}
	}
	return r
}

// str returns s with every absolute path replaced by <path>/BASENAME and
// every host name by <host>.
func (r *redactor) str(s string) string {
	s = absPath.ReplaceAllStringFunc(s, func(m string) string {
		sub := absPath.FindStringSubmatch(m)
		base := filepath.Base(sub[2])
		if base == "/" || base == "." {
			return sub[1] + RedactedPath
		}
		return sub[1] + RedactedPath + "/" + base
	})
	s = hostField.ReplaceAllString(s, "host="+RedactedHost)
	for _, h := range r.hosts {
		s = h.ReplaceAllString(s, RedactedHost)
	}
	return s
}

func (r *redactor) strs(ss []string) []string {
	out := slices.Clone(ss)
	for i := range out {
		out[i] = r.str(out[i])
	}
	return out
}

func (r *redactor) header(h *Header) {
	h.Command = r.strs(h.Command)
	for i := range h.Arms {
		x := &h.Arms[i]
		x.Spec, x.Build, x.Run = r.str(x.Spec), r.str(x.Build), r.str(x.Run)
		x.Env = r.strs(x.Env)
	}
	h.Ruler = r.str(h.Ruler)
	if h.Env.Host != "" {
		h.Env.Host = RedactedHost
	}
	h.Env.Build = r.str(h.Env.Build)
	h.Shards = r.strs(h.Shards)
}

// Redacted returns a copy of the analysis without host names or absolute
// paths (the journal's, the commands', the stamps'): each absolute path
// becomes <path>/ and its last element, each host name <host>.
func (a *Analysis) Redacted() *Analysis {
	var c Analysis
	b, err := json.Marshal(a)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		// An Analysis always round-trips through JSON; if that ever breaks,
		// redact nothing rather than print a half-copied report.
		panic("redacting an analysis: " + err.Error())
	}
	r := newRedactor(a.Header.Env.Host)
	r.header(&c.Header)
	c.Warnings = r.strs(c.Warnings)
	for arm := range c.Logs {
		for i := range c.Logs[arm] {
			c.Logs[arm][i].Path = r.str(c.Logs[arm][i].Path)
			c.Logs[arm][i].Stamp = r.str(c.Logs[arm][i].Stamp)
		}
	}
	for i := range c.Metrics {
		c.Metrics[i].Error = r.str(c.Metrics[i].Error)
	}
	return &c
}

// Redacted returns a copy of the journal without host names or absolute
// paths, as Analysis.Redacted.
func (j *Journal) Redacted() *Journal {
	c := *j
	r := newRedactor(j.Header.Env.Host)
	c.Path = r.str(c.Path)
	c.Header.Command = slices.Clone(c.Header.Command)
	c.Header.Shards = slices.Clone(c.Header.Shards)
	r.header(&c.Header)
	c.Warnings = r.strs(c.Warnings)
	c.Blocks = slices.Clone(j.Blocks)
	for i := range c.Blocks {
		b := &c.Blocks[i]
		b.Log, b.Stamp, b.Error = r.str(b.Log), r.str(b.Stamp), r.str(b.Error)
		b.Warnings = r.strs(b.Warnings)
	}
	return &c
}
