package swimlane

import (
	"math"
	"sort"
)

// A SideSummary is what the comparison reads of one side (one or more
// logs, the passes of one arm).
type SideSummary struct {
	Binds     int `json:"binds"`
	WarmBinds int `json:"warm_binds"`
	// LaneBirths and BornLanes sum the warm binds' (ColdBirths), and
	// BindsWithBirth counts the warm binds with at least one.
	LaneBirths     int            `json:"gaps_with_lane_birth"`
	BornLanes      int            `json:"lanes_born_in_gaps"`
	BindsWithBirth int            `json:"binds_with_lane_birth"`
	Gaps           int            `json:"gaps"`
	CommitWait     Stat           `json:"commit_wait_warm"`
	Concurrent     Stat           `json:"max_concurrent_recordings_warm"`
	LanesByRole    map[string]int `json:"lanes_by_role"`
	// RecordsPerWorker is the mean number of recorder spans per worker
	// lane that has one.
	RecordsPerWorker float64 `json:"records_per_worker_lane"`
}

// A PairedDiff is head − base of one quantity over paired warm binds:
// the i-th warm bind of base with the i-th of head (in pid, inv order),
// as many pairs as the shorter side has; the mean of the differences with
// a 95% Student t interval (none with fewer than two pairs).
type PairedDiff struct {
	Pairs int     `json:"pairs"`
	Mean  float64 `json:"mean_diff_ns"`
	Lo    float64 `json:"ci95_lo_ns"`
	Hi    float64 `json:"ci95_hi_ns"`
	HasCI bool    `json:"has_ci"`
}

// A LaneDiff compares two sides.
type LaneDiff struct {
	Base       SideSummary `json:"base"`
	Head       SideSummary `json:"head"`
	CommitWait PairedDiff  `json:"commit_wait_paired"`
}

// Side sums the lane reports of one side.
func Side(reps ...*LaneReport) SideSummary {
	s := SideSummary{LanesByRole: map[string]int{}}
	var waits, conc []int64
	var recs, workers int
	for _, r := range reps {
		for _, b := range r.Binds {
			s.Binds++
			if b.Warm {
				s.WarmBinds++
				if b.HasCommit {
					waits = append(waits, b.CommitWait)
				}
				if b.Recorders > 0 {
					conc = append(conc, int64(b.MaxConcurrent))
				}
				s.LaneBirths += b.LaneBirths
				s.BornLanes += b.BornLanes
				if b.LaneBirths > 0 {
					s.BindsWithBirth++
				}
			}
		}
		for _, g := range r.Gaps {
			s.Gaps += len(g.Gaps)
		}
		for _, l := range r.Lanes {
			s.LanesByRole[l.Role]++
			if l.Role != RoleWorker {
				continue
			}
			n := 0
			for _, c := range l.Spans {
				if recorderPhases[c.Name] {
					n += c.Count
				}
			}
			if n > 0 {
				recs += n
				workers++
			}
		}
	}
	s.CommitWait = statOf(waits)
	s.Concurrent = statOf(conc)
	if workers > 0 {
		s.RecordsPerWorker = float64(recs) / float64(workers)
	}
	return s
}

// warmWaits returns the commit waits of the warm binds with a commit, in
// the order of the reports and their binds.
func warmWaits(reps []*LaneReport) []int64 {
	var v []int64
	for _, r := range reps {
		for _, b := range r.Binds {
			if b.Warm && b.HasCommit {
				v = append(v, b.CommitWait)
			}
		}
	}
	return v
}

// CompareLanes compares the lane reports of two sides.
func CompareLanes(base, head []*LaneReport) LaneDiff {
	return LaneDiff{Base: Side(base...), Head: Side(head...), CommitWait: pairedDiff(warmWaits(base), warmWaits(head))}
}

func pairedDiff(base, head []int64) PairedDiff {
	n := min(len(base), len(head))
	d := PairedDiff{Pairs: n}
	if n == 0 {
		return d
	}
	diffs := make([]float64, n)
	var sum float64
	for i := range n {
		diffs[i] = float64(head[i] - base[i])
		sum += diffs[i]
	}
	d.Mean = sum / float64(n)
	if n < 2 {
		return d
	}
	var ss float64
	for _, x := range diffs {
		ss += (x - d.Mean) * (x - d.Mean)
	}
	se := math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	h := tQuantile975(n-1) * se
	d.Lo, d.Hi, d.HasCI = d.Mean-h, d.Mean+h, true
	return d
}

// t975 are the 0.975 quantiles of Student's t for 1 to 30 degrees of
// freedom; past 30 the table's last values are interpolated to 1.96.
var t975 = []float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

func tQuantile975(df int) float64 {
	switch {
	case df < 1:
		return math.NaN()
	case df <= len(t975):
		return t975[df-1]
	case df <= 60:
		return 2.000 + (2.042-2.000)*float64(60-df)/30
	case df <= 120:
		return 1.980 + (2.000-1.980)*float64(120-df)/60
	}
	return 1.960
}

// Roles of a side summary in a fixed order, for the reports.
func (s SideSummary) RoleNames() []string {
	var out []string
	for r := range s.LanesByRole {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}
