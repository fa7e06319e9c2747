// Package trace reads the host logs of simpler's runtime: [STRACE] span
// records, clock anchors, `bind phase=` and `host-orch phase=` lines, stamps,
// drop summaries and the host_phase_records.jsonl artifact. It owns the log
// grammar and nothing else: it computes no statistics and imports nothing of
// hbgkit. Its opinion is that a bad line is a record of its own (a torn
// record, a counted warning), never the end of the stream.
package trace

import (
	"math/big"
	"strings"
)

// Pos names the place a record came from, for messages.
type Pos struct {
	File string // the input's name as given ("-" for stdin, "<stdin>" is not used)
	Line int    // 1-based physical line number in that input
}

// A Span is one parsed [STRACE] record (docs/formats.md "[STRACE] spans").
type Span struct {
	Pid   int64
	Tid   int64
	Inv   uint64
	Hid   string // lowercase hex, as written ("0" for spans with no callable)
	Depth int64
	Name  string // percent-decoded (Latin-1 code points, a trailing ~ kept)
	Ts    int64  // ns; host spans CLOCK_MONOTONIC, device spans per-invocation
	Dur   int64  // ns
	Attrs string // raw attribute text, surrounding whitespace stripped, not decoded
	// Thread is the hex digits of the [T0x…] of the log envelope that
	// immediately precedes this record's [STRACE] on its line, "" when the
	// record has no envelope. It is the log thread (pthread handle), not Tid.
	Thread string
	Pos    Pos
}

// End returns Ts + Dur.
func (s *Span) End() int64 { return s.Ts + s.Dur }

// IsDevice reports whether the span is on the device clock: like the
// reference, a substring test for "clk=dev" in the raw attributes.
func (s *Span) IsDevice() bool { return strings.Contains(s.Attrs, "clk=dev") }

// Families of span names, decided by the word before the first '.' of the
// name as the reference decides them: ext is external; chip and core are
// their own; node, network1, network2 and network3 are node; anything
// else (simpler_run included) is unknown.
const (
	FamilyExternal = "external"
	FamilyChip     = "chip"
	FamilyCore     = "core"
	FamilyNode     = "node"
	FamilyUnknown  = "unknown"
)

func leadingWord(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return name
}

// Family returns the family of a span name, decided by the text before its
// first dot.
func Family(name string) string {
	switch leadingWord(name) {
	case "ext":
		return FamilyExternal
	case "chip":
		return FamilyChip
	case "core":
		return FamilyCore
	case "node", "network1", "network2", "network3":
		return FamilyNode
	}
	return FamilyUnknown
}

// NodeLeaf returns, for a node-family name, everything after its first dot
// (network1.submit → submit).
func NodeLeaf(name string) (string, bool) {
	if Family(name) != FamilyNode {
		return "", false
	}
	i := strings.IndexByte(name, '.')
	if i < 0 {
		return "", false
	}
	return name[i+1:], true
}

// ExternalProducer returns the producer of an ext.<producer>.<span> name; it
// needs at least three dot-separated parts with non-empty parts 1 and 2.
func ExternalProducer(name string) (string, bool) {
	if Family(name) != FamilyExternal {
		return "", false
	}
	parts := strings.Split(name, ".")
	if len(parts) < 3 || parts[1] == "" || parts[2] == "" {
		return "", false
	}
	return parts[1], true
}

// Decode replaces every % followed by two hex digits by the character whose
// code point is that byte value (Latin-1, as the reference does: %C3%A9 is
// two characters). A malformed escape and a trailing ~ stay as they are.
func Decode(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for j := 0; j < len(s); j++ {
		c := s[j]
		if c == '%' && j+2 < len(s) && isHex(s[j+1]) && isHex(s[j+2]) {
			b.WriteRune(rune(unhex(s[j+1])<<4 | unhex(s[j+2])))
			j += 2
			continue
		}
		if c < 0x80 {
			b.WriteByte(c)
			continue
		}
		// Copy a multi-byte UTF-8 sequence (or an invalid byte) unchanged.
		b.WriteByte(c)
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// An Attr is one parsed attribute (docs/formats.md "[STRACE] spans",
// Attributes).
type Attr struct {
	Key string
	// Value is the percent-decoded text, or for an integer the canonical
	// decimal (no leading zeros, "-0" is "0"). Integers keep any size.
	Value string
	IsInt bool
}

// Int returns the attribute as Python's int() gives it, as the reference's
// overlap proof reads an integer attribute: an integer value as it is, and a
// string value that int() accepts after percent-decoding — dispatch_id=%31%32
// is 12, run_epoch=003 is 3, %207, +7 and 1_0 are 7, 7 and 10 — while 1.5,
// 0x10, 1__0 and an empty value are not integers. Every reader of
// run-identity fields uses it.
func (a Attr) Int() (*big.Int, bool) {
	if a.IsInt {
		return new(big.Int).SetString(a.Value, 10)
	}
	return PyIntText(a.Value)
}

// Attrs is an ordered attribute set: a key keeps the position of its first
// occurrence and the value of its last, like a Python dict.
type Attrs []Attr

// Get returns the attribute named key.
func (a Attrs) Get(key string) (Attr, bool) {
	for _, x := range a {
		if x.Key == key {
			return x, true
		}
	}
	return Attr{}, false
}

// Has reports whether key is present.
func (a Attrs) Has(key string) bool {
	_, ok := a.Get(key)
	return ok
}

// ParseAttrs splits raw on whitespace; each token with an '=' becomes a key
// (split at the first '='). A value of an optional '-' and ASCII digits is an
// integer, checked before decoding; any other value is percent-decoded.
func ParseAttrs(raw string) Attrs { return AppendAttrs(nil, raw) }

// AppendAttrs appends the attributes of raw (ParseAttrs) to out, so that
// a caller that parses many spans one after another can reuse one slice
// (AppendAttrs(a[:0], raw)).
func AppendAttrs(out Attrs, raw string) Attrs {
	base := len(out)
	for tok := range strings.FieldsSeq(raw) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			continue
		}
		a := Attr{Key: k}
		if n, ok := canonicalInt(v); ok {
			a.Value, a.IsInt = n, true
		} else {
			a.Value = Decode(v)
		}
		replaced := false
		for i := base; i < len(out); i++ {
			if out[i].Key == k {
				out[i] = a
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, a)
		}
	}
	return out
}

func canonicalInt(v string) (string, bool) {
	neg := false
	d := v
	if strings.HasPrefix(d, "-") {
		neg, d = true, d[1:]
	}
	if d == "" {
		return "", false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return "", false
		}
	}
	d = strings.TrimLeft(d, "0")
	if d == "" {
		return "0", true
	}
	if neg {
		return "-" + d, true
	}
	return d, true
}
