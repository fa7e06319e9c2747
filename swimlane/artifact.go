package swimlane

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
)

// TEMPORARY: a local reader of host_phase_records.jsonl until
// trace.LoadPhaseRecords lands; it follows REFERENCE §1.6 and §3.8a.

// loadArtifact reads the passes of the named files in order.
func loadArtifact(paths []string) ([]artifactPass, error) {
	var out []artifactPass
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading host phase records: %w", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 0, 64<<10), len(b)+1)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			if pass, ok := parseArtifactLine(line); ok {
				out = append(out, pass)
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("reading host phase records %s: %w", p, err)
		}
	}
	return out, nil
}

func parseArtifactLine(line []byte) (artifactPass, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return artifactPass{}, false
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return artifactPass{}, false
	}
	var recs []any
	if r, ok := obj["records"]; ok {
		if recs, ok = r.([]any); !ok {
			return artifactPass{}, false
		}
	}
	var p artifactPass
	pid, okp := jsonInt(obj["pid"])
	inv, oki := jsonInt(obj["inv"])
	p.pid, p.inv, p.matchable = pid, uint64(inv), okp && oki && inv >= 0
	for _, rv := range recs {
		rec, ok := rv.(map[string]any)
		if !ok {
			continue
		}
		phaseV, ok := rec["phase"]
		if !ok {
			continue
		}
		start, ok1 := pyInt(rec["start_ns"])
		end, ok2 := pyInt(rec["end_ns"])
		if !ok1 || !ok2 {
			continue
		}
		r := artifactRecord{phase: pyStr(phaseV), start: start, end: end, detail: "0"}
		if d := rec["detail"]; pyTruthy(d) {
			r.detail = pyStr(d)
		}
		if tv, ok := rec["tid"]; ok {
			r.hasTid = true
			if t, ok := pyInt(tv); ok && t > 0 {
				r.tid = t
			}
		}
		p.records = append(p.records, r)
	}
	return p, true
}

// jsonInt is a JSON value that compares equal to a Python int: an integer,
// an integral float, or a boolean. Strings never match.
func jsonInt(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, true
		}
		f, err := x.Float64()
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
			return 0, false
		}
		return int64(f), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// pyInt converts like Python's int(): integers, floats truncated, booleans,
// and decimal strings (surrounding whitespace, a sign, digits with single
// underscores between them).
func pyInt(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n, true
		}
		f, _, err := big.ParseFloat(string(x), 10, 200, big.ToZero)
		if err != nil {
			return 0, false
		}
		n, acc := f.Int64()
		if f.IsInf() || (n == math.MaxInt64 && acc == big.Below) || (n == math.MinInt64 && acc == big.Above) {
			return 0, false
		}
		return n, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case string:
		s := strings.TrimSpace(x)
		if strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") {
			if len(s) > 1 && s[1] == '_' {
				return 0, false
			}
		}
		if strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
			return 0, false
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// pyTruthy is Python's truth value of a JSON value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// pyStr is Python's str() of a JSON value.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case json.Number:
		if _, err := x.Int64(); err == nil || !strings.ContainsAny(string(x), ".eE") {
			return string(x)
		}
		f, err := x.Float64()
		if err != nil {
			return string(x)
		}
		return pyFloat(f)
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// pyFloat is Python's repr of a float.
func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// LoadRecords reads host_phase_records.jsonl files (TEMPORARY, until
// trace.LoadPhaseRecords lands).
func LoadRecords(paths []string) ([]artifactPass, error) { return loadArtifact(paths) }
