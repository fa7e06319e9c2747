package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// A RecordPass is one line of host_phase_records.jsonl (docs/formats.md):
// the records of one prepare pass. Values stay as decoded JSON (numbers as
// json.Number) because the reference compares and converts them the Python
// way; Key and the PhaseRecord methods do that.
type RecordPass struct {
	Pid     any // the "pid" value as decoded, nil when absent
	Inv     any // the "inv" value as decoded, nil when absent
	Records []PhaseRecord
	Pos     Pos // file and line it came from
}

// A PhaseRecord is one element of a pass's "records" list, as decoded.
type PhaseRecord struct {
	// Fields holds the record's keys; nil when the element is not a JSON
	// object (such a record is skipped by every conversion).
	Fields map[string]any
}

// LoadPhaseRecords reads host_phase_records.jsonl files in order (a
// gzip-compressed one decompressed, readRecordsFile), keeping
// the reference reader's quirks: empty lines, lines that are not JSON (a
// truncated tail is normal), values that are not objects and objects whose
// "records" is present but not a list are skipped; a missing "records" is
// an empty pass that is kept. A file that cannot be read is an error naming
// it.
func LoadPhaseRecords(paths []string) ([]RecordPass, error) {
	out, _, err := LoadPhaseRecordsWarn(paths)
	return out, err
}

// LoadPhaseRecordsWarn is LoadPhaseRecords that also returns a warning per
// file that yields no pass at all — empty, or not an artifact (a log, a
// binary file): the reference accepts such a file silently. A file with
// some passes and some skipped lines gets none, since a truncated tail is
// normal and the reference's output is the contract there.
func LoadPhaseRecordsWarn(paths []string) ([]RecordPass, []string, error) {
	out, warns, _, err := LoadPhaseRecordsSkipped(paths)
	return out, warns, err
}

// LoadPhaseRecordsSkipped is LoadPhaseRecordsWarn that also returns the
// lines it skipped (not one complete JSON value, not an object, records
// not a list): views of hbgkit's own, which have no reference output to
// keep, name them.
func LoadPhaseRecordsSkipped(paths []string) ([]RecordPass, []string, []Pos, error) {
	return LoadPhaseRecordsMax(paths, 0)
}

// LoadPhaseRecordsMax is LoadPhaseRecordsSkipped holding at most maxValues
// JSON values (objects, lists, keys and scalars, counted before a line is
// decoded by jsonValuesAtMost; 0: no bound): the line that would go past
// it ends the read with a *TooManySpansError naming the file and line.
// Decoded, a value costs tens of bytes: a 60 MB line of 20 million empty
// records took 1.8 GB.
func LoadPhaseRecordsMax(paths []string, maxValues int) ([]RecordPass, []string, []Pos, error) {
	var out []RecordPass
	held := 0
	var skipped []Pos
	var warns []string
	for _, p := range paths {
		data, err := readRecordsFile(p)
		if err != nil {
			return nil, nil, nil, err
		}
		before, lines := len(out), 0
		for n, line := range bytes.Split(data, []byte{'\n'}) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			lines++
			if maxValues > 0 {
				if held += jsonValuesAtMost(line); held > maxValues {
					return nil, nil, nil, &TooManySpansError{Max: maxValues, Pos: Pos{File: p, Line: n + 1}, What: "JSON values of host_phase_records"}
				}
			}
			v, ok := decodeJSONLine(line)
			if !ok {
				skipped = append(skipped, Pos{File: p, Line: n + 1})
				continue
			}
			obj, ok := v.(map[string]any)
			if !ok {
				skipped = append(skipped, Pos{File: p, Line: n + 1})
				continue
			}
			rp := RecordPass{Pid: obj["pid"], Inv: obj["inv"], Pos: Pos{File: p, Line: n + 1}}
			if recs, present := obj["records"]; present {
				list, ok := recs.([]any)
				if !ok {
					skipped = append(skipped, Pos{File: p, Line: n + 1})
					continue
				}
				rp.Records = make([]PhaseRecord, len(list))
				for i, r := range list {
					m, _ := r.(map[string]any)
					rp.Records[i] = PhaseRecord{Fields: m}
				}
			}
			out = append(out, rp)
		}
		switch {
		case len(out) > before:
		case lines == 0:
			warns = append(warns, fmt.Sprintf("warning: %s holds no host_phase_records pass: it is empty", p))
		default:
			warns = append(warns, fmt.Sprintf("warning: %s holds no host_phase_records pass: none of its %d line(s) is a JSON object with a records list; is it the right file?", p, lines))
		}
	}
	return out, warns, skipped, nil
}

// jsonValuesAtMost returns a bound on the JSON values line decodes to:
// outside strings, a list or object of k elements holds k-1 commas, so
// the values are at most one, plus one per comma, plus one per '[' and '{'
// (the first element of each), plus one per ':' (an object's keys).
func jsonValuesAtMost(line []byte) int {
	n := 1
	inString, escaped := false, false
	for _, c := range line {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ',' || c == '[' || c == '{' || c == ':':
			n++
		}
	}
	return n
}

// decodeJSONLine decodes one complete JSON value, numbers as json.Number;
// trailing text makes it fail, as it does for Python's json.loads.
func decodeJSONLine(line []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if len(bytes.TrimSpace(line[dec.InputOffset():])) != 0 {
		return nil, false
	}
	return v, true
}

// Key returns the pass's (pid, inv) as integers, with Python's equality:
// integral numbers match (7 and 7.0 alike; true and false are 1 and 0);
// strings, null, lists, objects, fractions and out-of-range values do not.
// ok is false when the pass can match no span.
func (p RecordPass) Key() (pid int64, inv uint64, ok bool) {
	pb, ok1 := pyIntEq(p.Pid)
	ib, ok2 := pyIntEq(p.Inv)
	if !ok1 || !ok2 || !pb.IsInt64() || ib.Sign() < 0 || !ib.IsUint64() {
		return 0, 0, false
	}
	return pb.Int64(), ib.Uint64(), true
}

// pyIntEq returns the integer a JSON value equals under Python's ==, when
// it equals one.
func pyIntEq(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return big.NewInt(1), true
		}
		return big.NewInt(0), true
	case json.Number:
		if isJSONInt(string(x)) {
			n, ok := new(big.Int).SetString(string(x), 10)
			return n, ok
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) {
			return nil, false
		}
		n, _ := new(big.Float).SetFloat64(f).Int(nil)
		return n, true
	}
	return nil, false
}

func isJSONInt(s string) bool {
	return !strings.ContainsAny(s, ".eE")
}

// Interval returns the record's phase, start and end the way the
// reference's swimlane merge converts them (docs/formats.md
// "host_phase_records.jsonl"): phase =
// str(phase), start = int(start_ns), end = int(end_ns). ok is false when a
// field is missing or int() would fail (int() accepts numeric strings and
// truncates floats); such a record is skipped. Values beyond int64 count as
// failures.
func (r PhaseRecord) Interval() (phase string, start, end int64, ok bool) {
	if r.Fields == nil {
		return "", 0, 0, false
	}
	ph, ok1 := r.Fields["phase"]
	sv, ok2 := r.Fields["start_ns"]
	ev, ok3 := r.Fields["end_ns"]
	if !ok1 || !ok2 || !ok3 {
		return "", 0, 0, false
	}
	start, ok2 = PyInt(sv)
	end, ok3 = PyInt(ev)
	if !ok2 || !ok3 {
		return "", 0, 0, false
	}
	return PyStr(ph), start, end, true
}

// Tid returns the producer tid of a record: int(record.get("tid",
// parentTid)), falling back to parentTid when that fails or is <= 0.
// isRecordWorker reports whether the record has a "tid" key and the
// resulting tid differs from parentTid.
func (r PhaseRecord) Tid(parentTid int64) (tid int64, isRecordWorker bool) {
	v, has := r.Fields["tid"]
	if !has {
		return parentTid, false
	}
	t, ok := PyInt(v)
	if !ok || t <= 0 {
		t = parentTid
	}
	return t, t != parentTid
}

// Detail renders `record.get('detail', 0)` with Python's str()
// (as the reference's swimlane merge does): a missing key is "0", but JSON
// null is "None", true/false are "True"/"False", 1.5 stays "1.5", 1e20 is
// "1e+20" and a string is itself (even "").
func (r PhaseRecord) Detail() string {
	v, ok := r.Fields["detail"]
	if !ok {
		return "0"
	}
	return PyStr(v)
}

// PyInt converts a decoded JSON value like Python's int(): integers as
// they are, floats truncated toward zero, booleans as 0/1, strings holding
// a base-10 integer (surrounding whitespace, a sign and single underscores
// between digits allowed; ASCII digits only). Anything else, and a result
// outside int64, fails.
func PyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case json.Number:
		s := string(x)
		if isJSONInt(s) {
			n, err := strconv.ParseInt(s, 10, 64)
			return n, err == nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, false
		}
		f = math.Trunc(f)
		if f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
			return 0, false
		}
		return int64(f), true
	case string:
		return pyIntString(x)
	}
	return 0, false
}

func pyIntString(s string) (int64, bool) {
	n, ok := PyIntText(s)
	if !ok || !n.IsInt64() {
		return 0, false
	}
	return n.Int64(), true
}

// PyIntText parses s as Python's int(s) does (base 10): surrounding
// whitespace, one optional sign, ASCII digits with single underscores
// between them. "003" is 3, " 7" and "+7" are 7, "1_0" is 10; "1.5",
// "0x10", "1__0", "_1" and "" are not integers.
func PyIntText(s string) (*big.Int, bool) {
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return nil, false
	}
	d := strings.ReplaceAll(s, "_", "")
	for i := 0; i < len(d); i++ {
		if !isDigitByte(d[i]) {
			return nil, false
		}
	}
	n, ok := new(big.Int).SetString(d, 10)
	if !ok {
		return nil, false
	}
	if neg {
		n.Neg(n)
	}
	return n, true
}

// PyStr renders a decoded JSON value as Python's str() would render the
// value json.loads gives: strings as they are, None/True/False, integers
// in decimal, floats in repr form (1.0, 1e+16, inf), lists and dicts in
// repr form.
func PyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b strings.Builder
	pyRepr(&b, v)
	return b.String()
}

func pyRepr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(pyStrRepr(x))
	case json.Number:
		b.WriteString(pyNumber(string(x)))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			pyRepr(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		// Go maps lose the key order; sort for a stable rendering (Python
		// keeps the JSON order — a documented difference).
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyStrRepr(k))
			b.WriteString(": ")
			pyRepr(b, x[k])
		}
		b.WriteByte('}')
	default:
		fmt.Fprint(b, x)
	}
}

// pyNumber renders a JSON number literal as Python prints the int or float
// json.loads makes of it.
func pyNumber(s string) string {
	if isJSONInt(s) {
		if n, ok := new(big.Int).SetString(s, 10); ok {
			return n.String()
		}
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return s
	}
	return pyFloatRepr(f)
}

// pyFloatRepr renders f like Python's repr(float): the shortest digits
// that round-trip, positional for exponents -4..15, else d.ddde±XX.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	mant, expPart, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expPart)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// pyStrRepr quotes a string the way Python's repr does for printable text:
// single quotes unless the text holds a single quote and no double quote.
func pyStrRepr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
