package trace

import (
	"bytes"
	"encoding/binary"
	"unsafe"
)

// strTable makes the strings of records. Names, hids, phases and threads
// repeat endlessly and are interned; other text is copied into large shared
// chunks, so a record costs no allocation of its own. Strings are never
// modified once made. A string from a chunk keeps the whole chunk alive:
// a reader that keeps a few records of many should copy their text
// (strings.Clone).
type strTable struct {
	interned map[string]string
	chunk    []byte
	// recent is a direct-mapped front of interned (by shortHash): most
	// strings interned are one of a few recent ones, found with one
	// compare instead of hashing the whole string for the map.
	recent []string
}

const (
	strChunkSize  = 64 << 10
	maxInterned   = 1 << 14
	maxInternSize = 128
)

func newStrTable() strTable {
	return strTable{interned: make(map[string]string, 256)}
}

// bytes returns b as a string.
func (t *strTable) bytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > strChunkSize/8 {
		return string(b)
	}
	if cap(t.chunk)-len(t.chunk) < len(b) {
		t.chunk = make([]byte, 0, strChunkSize)
	}
	n := len(t.chunk)
	t.chunk = append(t.chunk, b...)
	s := t.chunk[n:len(t.chunk):len(t.chunk)]
	return unsafe.String(&s[0], len(s))
}

// intern returns b as a string, shared with earlier equal ones.
func (t *strTable) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if t.recent == nil {
		t.recent = make([]string, recentSlots)
	}
	r := &t.recent[shortHash(b)]
	if len(*r) == len(b) && *r == string(b) {
		return *r
	}
	if s, ok := t.interned[string(b)]; ok {
		*r = s
		return s
	}
	if len(b) > maxInternSize || len(t.interned) >= maxInterned {
		return t.bytes(b)
	}
	// An interned string is an allocation of its own: one that lives long
	// (a hid, a name kept by a view) must not pin a shared chunk full of
	// other records' text.
	s := string(b)
	t.interned[s] = s
	*r = s
	return s
}

// recentSlots is the size of a strTable's front cache.
const recentSlots = 1 << 10

// shortHash hashes b by its length and its last eight bytes (or all of a
// shorter b), where names of one family differ (…task_slot_9,
// …task_slot_15), into [0, recentSlots): cheaper than hashing it whole.
func shortHash(b []byte) uint {
	var x uint64
	if n := len(b); n >= 8 {
		x = binary.LittleEndian.Uint64(b[n-8:])
	} else {
		for _, c := range b {
			x = x<<8 | uint64(c)
		}
	}
	x ^= uint64(len(b)) << 56
	return uint((x * 0x9e3779b97f4a7c15) >> (64 - 10))
}

// hid returns a hid in lowercase.
func (t *strTable) hid(b []byte) string {
	for _, c := range b {
		if c >= 'A' && c <= 'F' {
			return t.intern(bytes.ToLower(b))
		}
	}
	return t.intern(b)
}

// name returns a percent-decoded span name.
func (t *strTable) name(b []byte) string {
	if bytes.IndexByte(b, '%') < 0 {
		return t.intern(b)
	}
	// The decoded form is interned under the raw bytes' key with a prefix
	// that no raw name can carry (a raw name holds no space).
	key := append(append(make([]byte, 0, len(b)+1), ' '), b...)
	if s, ok := t.interned[string(key)]; ok {
		return s
	}
	s := Decode(string(b))
	if len(key) <= maxInternSize && len(t.interned) < maxInterned {
		t.interned[string(key)] = s
	}
	return s
}

// A recentStrs remembers the last few strings made for one field of a
// record (a hid, a thread), which repeat from one record to the next, so
// that most records skip the intern map.
type recentStrs struct {
	s    [4]string
	next int
}

// get returns the remembered string equal to b, or makes one with mk and
// remembers it.
func (c *recentStrs) get(b []byte, mk func([]byte) string) string {
	for i := range c.s {
		if len(c.s[i]) == len(b) && c.s[i] == string(b) && len(b) > 0 {
			return c.s[i]
		}
	}
	s := mk(b)
	c.s[c.next] = s
	c.next = (c.next + 1) % len(c.s)
	return s
}
