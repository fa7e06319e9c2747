package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSwimlaneHTMLFlag(t *testing.T) {
	gapsDir, err := filepath.Abs("../../swimlane/testdata/gaps")
	require.NoError(t, err)
	log := filepath.Join(gapsDir, "run.log")
	recs := filepath.Join(gapsDir, "host_phase_records.jsonl")
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		html     bool
		json     bool
		hasGaps  bool
		errMatch string
	}{
		{name: "html alone", args: []string{"swimlane", log, "--html", "sw.html", "--records", recs}, html: true, hasGaps: true,
			stdout: "Wrote HTML swimlane: sw.html (4 host spans, 0 unaligned device spans, 25 host phase records)\n"},
		{name: "beside -o", args: []string{"swimlane", log, "-o", "sw.json", "--html", "sw.html"}, html: true, json: true,
			stdout: "Wrote host swimlane: sw.json (4 host spans, 0 unaligned device spans)\n" +
				"Wrote HTML swimlane: sw.html (4 host spans, 0 unaligned device spans)\n"},
		{name: "neither", args: []string{"swimlane", log}, code: 2, errMatch: "-o OUT.json is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code, dir := laneExec(t, nil, "", tc.args...)
			require.Equal(t, tc.code, code, stderr)
			if tc.errMatch != "" {
				assert.Contains(t, stderr, tc.errMatch)
				return
			}
			assert.Equal(t, tc.stdout, stdout)
			_, err := os.Stat(filepath.Join(dir, "sw.json"))
			assert.Equal(t, tc.json, err == nil)
			b, err := os.ReadFile(filepath.Join(dir, "sw.html"))
			require.Equal(t, tc.html, err == nil)
			page := string(b)
			assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"))
			assert.Equal(t, tc.hasGaps, strings.Contains(page, `"name":"graph submit main"`), "records add the lanes")
			assert.True(t, strings.Contains(page, `round 0: pid=9 inv=1`), "binds are labelled with their rounds row")
			assert.Equal(t, tc.hasGaps, strings.Contains(page, `"label":"gap 300.0 us`), "gaps drawn only with records")
		})
	}
}
