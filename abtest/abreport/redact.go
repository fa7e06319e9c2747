package abreport

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
)

// Redaction placeholders.
const (
	RedactedHost  = "<host>"
	RedactedPath  = "<path>"
	RedactedValue = "<redacted>"
)

// absPath matches an absolute path after a start, a space, a quote, = or :.
var absPath = regexp.MustCompile(`(^|[\s'"=:,(\[])(/[^\s'"=:,)\]]*)`)

// hostField matches host=NAME in a stamp.
var hostField = regexp.MustCompile(`\bhost=\S+`)

// A redactor drops host names, absolute paths and the values of --env
// switches from text.
type redactor struct {
	hosts   []*regexp.Regexp
	secrets *strings.Replacer // KEY=VALUE -> KEY=<redacted>, and VALUE alone
}

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
	if r.secrets != nil {
		s = r.secrets.Replace(s)
	}
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

// minSecretLen is the shortest --env value also redacted where it stands
// alone (not as KEY=VALUE): shorter ones (1, on, TIMING) would blank out
// unrelated text, and say little.
const minSecretLen = 6

// envSecrets makes r redact the values of the header's --env switches
// (every arm's, and what its recipe set) wherever they appear: the
// command line, the stamps and ruler, the arms.
func (r *redactor) envSecrets(h *journal.Header) *redactor {
	type swap struct{ old, new string }
	var swaps []swap
	seen := map[string]bool{}
	add := func(kv string) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" || seen[kv] {
			return
		}
		seen[kv] = true
		swaps = append(swaps, swap{kv, k + "=" + RedactedValue})
		if len(v) >= minSecretLen {
			swaps = append(swaps, swap{v, RedactedValue})
		}
	}
	for _, a := range append(h.Arms[:], h.AllArms...) {
		for _, kv := range a.Env {
			add(kv)
		}
	}
	for _, set := range h.RecipeSet {
		if kv, ok := strings.CutPrefix(set, "env "); ok {
			add(strings.TrimSuffix(kv, " (git arms only)"))
		}
	}
	if len(swaps) == 0 {
		return r
	}
	// strings.NewReplacer tries the old strings in argument order at each
	// position: the longest first, so KEY=VALUE wins over VALUE alone.
	slices.SortStableFunc(swaps, func(a, b swap) int { return len(b.old) - len(a.old) })
	pairs := make([]string, 0, 2*len(swaps))
	for _, sw := range swaps {
		pairs = append(pairs, sw.old, sw.new)
	}
	r.secrets = strings.NewReplacer(pairs...)
	return r
}

func (r *redactor) header(h *journal.Header) {
	h.Command = r.strs(h.Command)
	h.Repo, h.Cache, h.Recipe = r.str(h.Repo), r.str(h.Cache), r.str(h.Recipe)
	h.RecipeSet = r.strs(h.RecipeSet)
	h.AllArms = slices.Clone(h.AllArms)
	for _, x := range append(ptrs(h.Arms[:]), ptrs(h.AllArms)...) {
		x.Spec, x.Build, x.Run, x.Sweep = r.str(x.Spec), r.str(x.Build), r.str(x.Run), r.str(x.Sweep)
		x.Env = r.strs(x.Env)
	}
	h.Ruler = r.str(h.Ruler)
	if h.Env.Host != "" {
		h.Env.Host = RedactedHost
	}
	h.Env.Build = r.str(h.Env.Build)
	h.Shards = r.strs(h.Shards)
}

// Redacted returns a copy of the analysis without host names, absolute
// paths (the journal's, the repository's, the commands', the stamps') or
// --env values: each absolute path becomes <path>/ and its last element,
// each host name <host>, each KEY=VALUE of an --env switch (or of the
// recipe's [env]) KEY=<redacted>, wherever it appears.
func Redacted(a *analysis.Analysis) *analysis.Analysis {
	var c analysis.Analysis
	b, err := json.Marshal(a)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		// An Analysis always round-trips through JSON; if that ever breaks,
		// redact nothing rather than print a half-copied report.
		panic("redacting an analysis: " + err.Error())
	}
	r := newRedactor(a.Header.Env.Host).envSecrets(&a.Header)
	for _, x := range append([]*analysis.Analysis{&c}, c.Comparisons...) {
		r.header(&x.Header)
		x.Warnings = r.strs(x.Warnings)
		for arm := range x.Logs {
			for i := range x.Logs[arm] {
				x.Logs[arm][i].Path = r.str(x.Logs[arm][i].Path)
				x.Logs[arm][i].Stamp = r.str(x.Logs[arm][i].Stamp)
			}
		}
		for i := range x.Metrics {
			x.Metrics[i].Error = r.str(x.Metrics[i].Error)
		}
		x.CheckFailed = r.str(x.CheckFailed)
		for i := range x.Checks {
			c := &x.Checks[i]
			c.Command, c.Dir, c.Log, c.Error, c.Tail = r.str(c.Command), r.str(c.Dir), r.str(c.Log), r.str(c.Error), r.strs(c.Tail)
		}
	}
	// s_w and the key are not in the JSON (the key is there as the name);
	// aa's margin interval rests on s_w, benchfmt's values on the key.
	for k, x := range append([]*analysis.Analysis{&c}, c.Comparisons...) {
		src := a
		if k > 0 {
			src = a.Comparisons[k-1]
		}
		for i := range x.Metrics {
			x.Metrics[i].Sw = src.Metrics[i].Sw
			x.Metrics[i].Key = src.Metrics[i].Key
		}
	}
	return &c
}

// ptrs returns pointers to the elements of s.
func ptrs[T any](s []T) []*T {
	out := make([]*T, len(s))
	for i := range s {
		out[i] = &s[i]
	}
	return out
}

// Redacted returns a copy of the journal without host names or absolute
// paths, as Analysis.Redacted.
func RedactedJournal(j *journal.Journal) *journal.Journal {
	c := *j
	r := newRedactor(j.Header.Env.Host).envSecrets(&j.Header)
	c.Path = r.str(c.Path)
	c.Header.RecipeSet = slices.Clone(c.Header.RecipeSet)
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
