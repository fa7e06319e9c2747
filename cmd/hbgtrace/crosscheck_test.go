package main

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runJSON runs hbgtrace with args plus --format json and decodes stdout
// into v; it returns the exit status and stderr.
func runJSON(t *testing.T, v any, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append(args, "--format", "json"), strings.NewReader(""), &stdout, &stderr)
	if code == 0 {
		require.NoError(t, json.Unmarshal(stdout.Bytes(), v), "hbgtrace %v", args)
	}
	return code, stderr.String()
}

// TestControlPlaneCrossCheck checks the two control-plane computations
// against each other: the minimum per-round ControlPlane of `rounds` (the
// HBG accounting of docs/accounting.md) equals the minimum per-pass
// control-plane total of `phases` (the reference's sum), on every generation
// fixture that both read. They share no code above the reader, so a defect in
// either shows here. Both minima are compared in whole nanoseconds
// (rounds prints µs, phases ms).
func TestControlPlaneCrossCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		fixture string
		phases  bool // phases reads the fixture (it has bind-phase lines or E3 segment spans)
	}{
		{"E1", "hbg-e1.log", true},
		{"E1 two ranks sharing a T0x", "hbg-e1-two-ranks-shared-t0x.log", true},
		{"E2", "hbg-e2.log", true},
		{"E3 spool", "hbg-e3-spool.log", true},
		// PR-1870 logs carry simpler_run.bind.* spans only: phases refuses
		// them, as the reference does, so there is nothing to compare.
		{"PR-1870", "hbg-pr1870.log", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log, err := filepath.Abs(filepath.Join("../../fixtures", tc.fixture))
			require.NoError(t, err)

			var rounds struct {
				HBG *struct {
					Rows []struct {
						ControlPlane *float64 `json:"controlplane_us"`
					} `json:"rows"`
				} `json:"hbg_accounting"`
			}
			code, stderr := runJSON(t, &rounds, "rounds", log)
			require.Equal(t, 0, code, stderr)
			require.NotNil(t, rounds.HBG, "rounds prints the HBG accounting")
			minRounds := math.Inf(1)
			for _, r := range rounds.HBG.Rows {
				if r.ControlPlane != nil {
					minRounds = math.Min(minRounds, *r.ControlPlane)
				}
			}
			require.False(t, math.IsInf(minRounds, 1), "some round has a ControlPlane")

			var phases struct {
				ControlPlane struct {
					Total struct {
						Min float64 `json:"min"`
						N   int     `json:"n"`
					} `json:"total"`
				} `json:"control_plane"`
			}
			code, stderr = runJSON(t, &phases, "phases", log)
			if !tc.phases {
				assert.Equal(t, 1, code, "phases refuses %s: %s", tc.fixture, stderr)
				return
			}
			require.Equal(t, 0, code, stderr)
			require.Positive(t, phases.ControlPlane.Total.N)
			assert.Equal(t, math.Round(phases.ControlPlane.Total.Min*1e6), math.Round(minRounds*1e3),
				"min ControlPlane: phases %.6f ms, rounds %.3f us", phases.ControlPlane.Total.Min, minRounds)
		})
	}
}
