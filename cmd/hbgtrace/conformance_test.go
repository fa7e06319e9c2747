package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConformance runs every case of fixtures/conformance (a copy of
// ../shared/conformance/cases, produced by the reference scripts) in-process
// and compares stdout, stderr and the exit status byte for byte, and written
// JSON files as parsed JSON, as ../shared/conformance/run.sh does.
func TestConformance(t *testing.T) {
	root, err := filepath.Abs("../../fixtures/conformance")
	require.NoError(t, err)
	dirs, err := os.ReadDir(root)
	require.NoError(t, err)
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		caseDir := filepath.Join(root, d.Name())
		if _, err := os.Stat(filepath.Join(caseDir, "cmd")); err != nil {
			continue
		}
		n++
		t.Run(d.Name(), func(t *testing.T) { runConformanceCase(t, caseDir) })
	}
	require.NotZero(t, n, "no conformance cases found under %s", root)
}

func runConformanceCase(t *testing.T, caseDir string) {
	work := t.TempDir()
	entries, err := os.ReadDir(caseDir)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), "expected.") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(caseDir, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(work, e.Name()), b, 0o644))
	}
	cmdLine, err := os.ReadFile(filepath.Join(caseDir, "cmd"))
	require.NoError(t, err)
	argv := strings.Fields(string(cmdLine))
	require.NotEmpty(t, argv)
	require.Equal(t, "hbgtrace", argv[0])

	var stdin []byte
	if b, err := os.ReadFile(filepath.Join(caseDir, "stdin")); err == nil {
		stdin = b
	}
	t.Chdir(work)
	var stdout, stderr bytes.Buffer
	code := run(argv[1:], bytes.NewReader(stdin), &stdout, &stderr)

	wantCode := readExpected(t, caseDir, "exit")
	want, err := strconv.Atoi(strings.TrimSpace(wantCode))
	require.NoError(t, err)
	assert.Equal(t, want, code, "exit status")
	assert.Equal(t, readExpected(t, caseDir, "stdout"), stdout.String(), "stdout")
	assert.Equal(t, readExpected(t, caseDir, "stderr"), stderr.String(), "stderr")

	jsons, err := filepath.Glob(filepath.Join(caseDir, "expected.*.json"))
	require.NoError(t, err)
	for _, exp := range jsons {
		name := strings.TrimPrefix(filepath.Base(exp), "expected.")
		wantDoc := decodeJSONFile(t, exp)
		gotPath := filepath.Join(work, name)
		if _, err := os.Stat(gotPath); err != nil {
			t.Errorf("%s: not written", name)
			continue
		}
		gotDoc := decodeJSONFile(t, gotPath)
		if d := jsonDiff(wantDoc, gotDoc, "$"); d != "" {
			t.Errorf("%s: %s", name, d)
		}
	}
}

func readExpected(t *testing.T, dir, what string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "expected."+what))
	require.NoError(t, err)
	return string(b)
}

func decodeJSONFile(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v), "%s is not valid JSON", path)
	return v
}

// jsonDiff compares two decoded documents the way run.sh does: numbers
// numerically with a relative tolerance of 1e-9, object keys as sets, arrays
// in order. It returns "" when they are equal, else where they first differ.
func jsonDiff(want, got any, path string) string {
	switch w := want.(type) {
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return fmt.Sprintf("%s: expected number %s got %T", path, w, got)
		}
		if w.String() == g.String() {
			return ""
		}
		wf, err1 := strconv.ParseFloat(w.String(), 64)
		gf, err2 := strconv.ParseFloat(g.String(), 64)
		if err1 == nil && err2 == nil && (wf == gf || math.Abs(wf-gf) <= 1e-9*math.Max(math.Abs(wf), math.Abs(gf))) {
			return ""
		}
		return fmt.Sprintf("%s: expected %s got %s", path, w, g)
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: expected object got %T", path, got)
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, ok := g[k]; !ok {
				return fmt.Sprintf("%s: missing key %q", path, k)
			}
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				return fmt.Sprintf("%s: unexpected key %q", path, k)
			}
		}
		for _, k := range keys {
			if d := jsonDiff(w[k], g[k], path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: expected array got %T", path, got)
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			if d := jsonDiff(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		if len(w) != len(g) {
			return fmt.Sprintf("%s: expected %d items got %d", path, len(w), len(g))
		}
		return ""
	default:
		if fmt.Sprint(want) != fmt.Sprint(got) || fmt.Sprintf("%T", want) != fmt.Sprintf("%T", got) {
			return fmt.Sprintf("%s: expected %v got %v", path, want, got)
		}
		return ""
	}
}

func TestJSONDiff(t *testing.T) {
	t.Parallel()
	dec := func(s string) any {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var v any
		require.NoError(t, d.Decode(&v))
		return v
	}
	tests := []struct {
		name      string
		want, got string
		equal     bool
	}{
		{"int equals float", `{"a":1}`, `{"a":1.0}`, true},
		{"key order ignored", `{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{"missing key", `{"a":1,"b":2}`, `{"a":1}`, false},
		{"extra key", `{"a":1}`, `{"a":1,"b":2}`, false},
		{"array order", `[1,2]`, `[2,1]`, false},
		{"string vs number", `{"a":"1"}`, `{"a":1}`, false},
		{"tolerance", `0.1`, `0.10000000000000001`, true},
		{"different numbers", `0.1`, `0.2`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := jsonDiff(dec(tc.want), dec(tc.got), "$")
			assert.Equal(t, tc.equal, d == "", d)
		})
	}
}
