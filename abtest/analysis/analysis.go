// Package analysis turns a journal into typed results: the paired
// analysis of interleaved rounds (Analyze), the unpaired one of captured
// logs (AnalyzeUnpaired), campaigns of more than two arms, shards merged
// as strata (Merge), and the looks of a sequential design, with
// abtest/stats beneath it. It is pure: it reads journals and runs nothing.
// Its opinion is the round's: the round is the unit of inference, not the
// pass; passes of one block share a process and are never treated as
// independent samples.
package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// An ArmSummary describes one arm's warm passes of one metric, in the
// metric's unit (µs for time; the _us of the JSON names is kept for them):
// descriptive only, since passes of a block are not independent.
type ArmSummary struct {
	N           int         `json:"n"`
	Trim        int         `json:"trim"` // passes dropped from each end for the trimmed mean
	TrimmedMean journal.Num `json:"trimmed_mean_us"`
	Median      journal.Num `json:"median_us"`
	Min         journal.Num `json:"min_us"`
	// P90 and Max are the ceiling: the p90 (Quantile, CeilingQuantile)
	// and the maximum of the arm's warm passes.
	P90    journal.Num `json:"p90_us"`
	Max    journal.Num `json:"max_us"`
	Blocks int         `json:"blocks"`
}

// A MetricResult is the paired analysis of one metric over the rounds in
// which both arms recorded it.
type MetricResult struct {
	Key     metric.Key        `json:"-"`    // the metric and, under --per-rank, the rank
	Name    string            `json:"name"` // Key as reports write it
	Label   string            `json:"label"`
	Family  string            `json:"family"`
	Kind    metric.MetricKind `json:"kind"` // time, cpu, count or bytes; "" (older analyses) is time
	Unit    string            `json:"unit"` // the unit of the arms' columns: µs, µs CPU, count, bytes
	Primary bool              `json:"primary"`
	Rounds  int               `json:"rounds"`
	Arms    [2]ArmSummary     `json:"arms"` // base, head

	Delta     journal.Num `json:"delta"` // exp(trimmed mean of d) − 1
	CILo      journal.Num `json:"ci_lo"`
	CIHi      journal.Num `json:"ci_hi"`
	BootLo    journal.Num `json:"boot_lo"`
	BootHi    journal.Num `json:"boot_hi"`
	DeltaMin  journal.Num `json:"delta_min"`        // paired analysis of block minima
	MinCILo   journal.Num `json:"delta_min_ci_lo"`  //
	MinCIHi   journal.Num `json:"delta_min_ci_hi"`  //
	GlobalMin journal.Num `json:"delta_min_global"` // min(B)/min(A) − 1 over all warm passes
	// DeltaMedian, under --block-stat min, is the same paired analysis on
	// block medians, with its interval and verdict: the typical pass beside
	// the floor (medianBeside). Absent (0, nil) under any other statistic.
	DeltaMedian   journal.Num `json:"delta_median,omitempty"`
	MedCILo       journal.Num `json:"delta_median_ci_lo,omitempty"`
	MedCIHi       journal.Num `json:"delta_median_ci_hi,omitempty"`
	MedianVerdict *Verdict    `json:"verdict_median,omitempty"`
	// DeltaP90 is the same paired analysis on each block's p90 of its
	// warm passes (the ceiling), with its interval and verdict, beside Δ
	// (ceilingBeside); absent (nil) where no paired analysis ran.
	DeltaP90   journal.Num `json:"delta_p90,omitempty"`
	P90CILo    journal.Num `json:"delta_p90_ci_lo,omitempty"`
	P90CIHi    journal.Num `json:"delta_p90_ci_hi,omitempty"`
	P90Verdict *Verdict    `json:"verdict_p90,omitempty"`
	SignK      int         `json:"sign_agree"`
	SignN      int         `json:"sign_n"`
	SignP      journal.Num `json:"sign_p"`
	P          journal.Num `json:"p"`      // Wilcoxon signed-rank
	TP         journal.Num `json:"p_t"`    // trimmed t test of Δ = 0, the test the 95% CI and so the verdict rest on
	HolmP      journal.Num `json:"holm_p"` // Holm-adjusted within the family's secondary rows; p for the primary, Holm-adjusted over the ranks under --per-rank
	Zeros      int         `json:"zeros"`  // rounds with d = 0, dropped by the Wilcoxon test
	SigmaD     journal.Num `json:"sigma_d"`
	MDE        journal.Num `json:"mde"`
	Verdict    Verdict     `json:"verdict"`
	Extra      int         `json:"extra_rounds,omitempty"` // inconclusive: rounds that would settle it
	Gated      bool        `json:"gated,omitempty"`        // the interval alone called it; its Holm p did not
	Error      string      `json:"error,omitempty"`        // why the metric has no analysis
	// Aliases are the metrics this row stands for as well: they carried
	// the same value as it in every warm pass analysed, so they are one
	// quantity, tested once (distinctMetrics).
	Aliases []string `json:"aliases,omitempty"`
	// NoInterval says why the intervals and the MDE are null: too few
	// rounds (MinIntervalRounds); NoEstimate why an inconclusive row has
	// no extra_rounds (MinEstimateRounds).
	NoInterval string `json:"no_interval,omitempty"`
	NoEstimate string `json:"no_estimate,omitempty"`
	// NonZero is, for a count that was 0 in some warm pass of either arm
	// (a discrete event: a fault, a switch), on how many warm passes of
	// base and of head it was above 0, of Arms[arm].N; nil otherwise.
	NonZero []int `json:"nonzero,omitempty"`
	// Level is each arm's level in the row's unit, the figures a report
	// prints beside Δ: for a paired row the geometric mean of the arm's
	// block statistics over the rounds Δ's trimmed mean keeps
	// (stats.PairedLevels), so that Level[head]/Level[base] − 1 is Δ; for
	// compare's rows each arm's trimmed geometric mean of its logs' block
	// statistics (the same identity); for a row with no Δ (a count that
	// was 0 in a block) the mean of its block statistics. LevelOf names
	// which (LevelPaired, LevelTrimmed, LevelMean); null when unknown.
	Level   [2]journal.Num `json:"level"`
	LevelOf string         `json:"level_of,omitempty"`
	// Constant is true when every warm pass of both arms had the same
	// value: the same work, to the unit.
	Constant bool `json:"constant,omitempty"`
	// Determined is true when the verdict is not a test's but the work
	// count's own: one value on every warm pass of each arm, another
	// between them (callDetermined).
	Determined bool `json:"determined,omitempty"`
	// CountDiff is true when Δ, its interval and p are of the differences
	// of a lane metric's block statistics, not of their log-ratios: a
	// count or a commit wait that was 0 in some block (countDiff).
	CountDiff bool `json:"count_diff,omitempty"`

	// sw is the 20%-winsorized SD of the log-ratios: the spread the
	// interval and the MDE rest on, and so the rounds-for-margin estimate.
	Sw float64 `json:"-"`
	// baseLevel is base's block statistic over the rounds analysed (their
	// geometric mean, in the metric's stored unit): what Δ is a ratio to
	// (BaseLevel). typicalLevel, under --block-stat min, is the same of
	// the block medians, what Δmedian is a ratio to, so that FloorLines
	// can tell an added constant from a divergence.
	baseLevel, typicalLevel float64
}

// Noise is the campaign's noise footer, for its primary metric.
type Noise struct {
	SigmaD journal.Num `json:"sigma_d"` // SD of the per-round log-ratios
	// SigmaT is the trimmed spread s_w/0.6 (s_w the 20%-winsorized SD of
	// the log-ratios) that the interval, the MDE and RoundsForMargin rest
	// on: MDE = exp((t₀.₉₇₅ + t₀.₈)·σ_t/√R) − 1.
	SigmaT journal.Num `json:"sigma_t"`
	MDE    journal.Num `json:"mde"` // Δ detectable with 80% power in this many rounds
	// RoundsForMargin is the rounds the margin would need to be the MDE,
	// from the same spread as MDE (stats.TrimmedRoundsFor).
	RoundsForMargin int            `json:"rounds_for_margin"`
	Lag1            [2]journal.Num `json:"lag1"`  // lag-1 autocorrelation of warm pass values, per arm, in time order
	Drift           [2]journal.Num `json:"drift"` // least-squares slope of ln(block statistic) per round, per arm
	Failures        [2]int         `json:"failures"`
	Dropped         int            `json:"dropped_rounds"`

	// NoEstimate says why RoundsForMargin is 0: too few rounds
	// (MinEstimateRounds).
	NoEstimate string `json:"no_estimate,omitempty"`
}

// AnalysisSchema is the version of the JSON form of an Analysis (`hbgbench
// report --format json`, docs/ab-reference.md "The json schema"). It grows when a
// field changes meaning or goes away; new fields keep the version.
const AnalysisSchema = 2

// A Design is how the data an Analysis comes from was gathered, and so
// which analysis it gets.
type Design string

// The designs an Analysis can come from (DesignStratified, merge.go, is
// the fourth).
const (
	// DesignInterleaved is a campaign of rounds (ab, aa): paired analysis.
	DesignInterleaved Design = "interleaved"
	// DesignUnpaired is compare with 2 or more logs per arm: one block
	// statistic per log, unpaired analysis.
	DesignUnpaired Design = "unpaired"
	// DesignDescriptive is compare with a single log on an arm: pass-level
	// descriptives only, no interval and no test.
	DesignDescriptive Design = "descriptive"
)

// An Analysis is a campaign's analysed state: what ran, each metric's
// paired result and verdict, the noise footer and the warnings.
type Analysis struct {
	// CheckFailed says, first, which arm's correctness check failed, and
	// so why no arm of it has a verdict (checks.go); "" when none failed.
	CheckFailed string `json:"check_failed,omitempty"`
	Schema      int    `json:"schema"` // AnalysisSchema
	// Design is DesignInterleaved, DesignUnpaired or DesignDescriptive.
	Design Design `json:"design"`
	// Test names the test behind P: "wilcoxon signed-rank" (rounds),
	// "wilcoxon rank-sum" (compare) or "" (descriptive).
	Test     string         `json:"test"`
	Header   journal.Header `json:"header"`
	Planned  int            `json:"planned_rounds"`
	Complete int            `json:"complete_rounds"` // rounds analysed
	Partial  bool           `json:"partial"`         // the campaign stopped before its last round
	AA       bool           `json:"aa"`              // the same arm on both sides
	AAReason string         `json:"aa_reason,omitempty"`
	Primary  metric.Key     `json:"primary"`
	Margin   float64        `json:"margin"`
	Metrics  []MetricResult `json:"metrics"`
	Noise    Noise          `json:"noise"`
	Warnings []string       `json:"warnings"`
	// WorkDiffs are the work counts the arms disagree on (the medians of
	// their warm passes): the arms did not do the same work.
	WorkDiffs []WorkDiff `json:"work_differs,omitempty"`
	// Logs are compare's input logs, per arm (base, head); absent for a
	// campaign, whose block logs the journal names.
	Logs [][]LogInfo `json:"logs,omitempty"`
	// Sequential is the design and looks of an --until-decided campaign
	// (sequential.go); absent for a fixed design.
	Sequential *Sequential `json:"sequential,omitempty"`
	// Cost is the machine time the campaign spent on its arms (cost.go);
	// absent when its blocks carry no wall time (compare's logs).
	Cost *Cost `json:"cost,omitempty"`
	// Comparisons are, in a campaign of more than two arms, the analysis
	// of each other arm against the base (AnalyzeArms); Metrics is then
	// empty.
	Comparisons []*Analysis `json:"comparisons,omitempty"`
	// RoundTable is the primary metric round by round: each arm's block
	// statistic and the log-ratio the paired analysis reads (under
	// --per-rank the first primary row's); absent when nothing paired.
	RoundTable []RoundRow `json:"round_table,omitempty"`
	// Checks are each arm's latest correctness check, as journaled.
	Checks []journal.CheckRecord `json:"checks,omitempty"`
	// Switches are the arms that run with a switch known to turn a
	// correctness check off (journal.CorrectnessSwitches), each with its
	// switches; Qualifiers say it in words.
	Switches []ArmSwitches `json:"correctness_switches,omitempty"`
	// Qualifiers are what qualifies the verdict (qualifiers.go): the load,
	// failures, an extension, a correctness switch; a report shows them
	// above its table.
	Qualifiers []string `json:"qualifiers,omitempty"`
}

// A RoundRow is one round of the primary metric: each arm's block
// statistic in the row's unit and ln(head/base).
type RoundRow struct {
	Round    int            `json:"round"`
	Stat     [2]journal.Num `json:"stat"` // base, head
	LogRatio journal.Num    `json:"log_ratio"`
}

// A LogInfo is one log compare read: its path, its [stamp] text and how
// many passes it yielded.
type LogInfo struct {
	Path   string `json:"path"`
	Stamp  string `json:"stamp"`
	Passes int    `json:"passes"`
}

// PrimaryResult returns the primary metric's result, or nil.
func (a *Analysis) PrimaryResult() *MetricResult {
	for i := range a.Metrics {
		if a.Metrics[i].Primary {
			return &a.Metrics[i]
		}
	}
	return nil
}

// PrimaryResults returns every primary row: the primary metric's, or under
// --per-rank one per rank (ControlPlane@rank0, ControlPlane@rank1, ...).
func (a *Analysis) PrimaryResults() []*MetricResult {
	var out []*MetricResult
	for i := range a.Metrics {
		if a.Metrics[i].Primary {
			out = append(out, &a.Metrics[i])
		}
	}
	return out
}

// armBlocks are the counted blocks of both arms, round by round.
type roundPair struct {
	round  int
	blocks [2]*journal.BlockRecord
}

// Analyze analyses a journal: the counted blocks of every complete round,
// per metric. It is deterministic: the same journal gives the same
// analysis.
func Analyze(j *journal.Journal) *Analysis {
	if len(j.Header.AllArms) > 0 {
		return analyzeArms(j)
	}
	j, derived := withDerived(j)
	h := j.Header
	cfg := h.Config
	a := &Analysis{
		Schema: AnalysisSchema, Design: DesignInterleaved, Test: "wilcoxon signed-rank",
		Header: h, Planned: cfg.Rounds, Primary: h.Primary, Margin: cfg.Margin,
		AA: h.Arms[journal.Base].Same(h.Arms[journal.Head]),
	}
	switch {
	case a.AA && h.Arms[journal.Base].Kind == journal.KindGit:
		a.AAReason = "both refs are commit " + h.Arms[journal.Base].Sha[:min(12, len(h.Arms[journal.Base].Sha))]
	case a.AA:
		a.AAReason = "both arms are the same embedded spec or command"
	case h.Artifact != "" && h.ArtifactHashes[journal.Base] != "" && h.ArtifactHashes[journal.Base] == h.ArtifactHashes[journal.Head]:
		a.AA = true
		a.AAReason = fmt.Sprintf("identical binaries: the files %s are byte-identical in both builds", h.Artifact)
	}
	a.Warnings = append(a.Warnings, j.Warnings...)
	a.Warnings = append(a.Warnings, blockEvidenceWarnings(j)...)
	if a.Primary == (metric.Key{}) {
		// The header was written before any block counted (a campaign
		// that failed at first and was resumed): the first block that
		// counts chooses, as it would have.
		for k := range j.Blocks {
			if b := &j.Blocks[k]; b.OK() && len(b.Passes) > 0 {
				a.Primary = metric.ChoosePrimary(b.Passes)
				break
			}
		}
	}
	pairs := completePairs(j, a)
	a.Complete = len(pairs)
	for _, b := range j.Blocks {
		if !b.OK() {
			if b.Arm == journal.ArmNames[journal.Base] {
				a.Noise.Failures[journal.Base]++
			} else {
				a.Noise.Failures[journal.Head]++
			}
		}
	}
	if a.Complete > 0 && a.Complete < stats.MinRounds {
		a.Warnings = append(a.Warnings, fmt.Sprintf("only %d rounds: with fewer than %d no Wilcoxon p can fall below 0.05, and %s", a.Complete, stats.MinRounds, intervalWarning(a.Complete)))
	}

	logs := pairLogs(pairs)
	a.WorkDiffs = WorkDiffs(logs, pairWhere(pairs), cfg.Cold)
	names, aliases := distinctMetrics(metricsOfLogs(logs, cfg.PerRank, a.Primary, derived), logs, cfg, a.Primary)
	for i, m := range names {
		res := analyseMetric(m, pairs, cfg, isPrimary(m.Key, a.Primary, cfg.PerRank))
		res.Aliases = aliases[i]
		a.Metrics = append(a.Metrics, res)
	}
	decideAll(a.Metrics, cfg.Margin)
	callDetermined(a, cfg.Margin)
	if p := a.PrimaryResult(); p != nil {
		a.RoundTable = roundTable(pairs, p, cfg)
	}
	analyseSequential(a, j)
	a.Noise = noiseOf(a, pairs, cfg)
	withholdEstimates(a)
	applyChecks(a, j)
	a.Qualifiers = append(qualifiers(a, j), ceilingLines(a)...)
	a.Cost = costOf(a, j)
	return a
}

// completePairs returns the counted blocks of j's complete rounds, round
// by round, and notes on a the rounds not complete (Partial), dropped
// (Noise.Dropped) or lacking a block (Warnings).
func completePairs(j *journal.Journal, a *Analysis) []roundPair {
	var pairs []roundPair
	done := j.History()
	for i := 1; i <= j.Header.Config.Rounds; i++ {
		r := done.DoneRound(i)
		if r == nil {
			a.Partial = true
			continue
		}
		if r.Status != journal.RoundOK {
			a.Noise.Dropped++
			continue
		}
		p := roundPair{round: i, blocks: [2]*journal.BlockRecord{done.CountedBlock(i, journal.ArmNames[journal.Base]), done.CountedBlock(i, journal.ArmNames[journal.Head])}}
		if p.blocks[journal.Base] == nil || p.blocks[journal.Head] == nil {
			a.Warnings = append(a.Warnings, fmt.Sprintf("round %d is marked ok but lacks a counted block; left out", i))
			continue
		}
		pairs = append(pairs, p)
	}
	return pairs
}

// isPrimary reports whether k is the primary metric's row, or under
// perRank one rank's row of a pooled primary.
func isPrimary(k, primary metric.Key, perRank bool) bool {
	return k == primary || perRank && !primary.Ranked && k.Ranked && k.Name == primary.Name
}

// pairLogs returns the passes of each arm's blocks, round by round.
func pairLogs(pairs []roundPair) [2][][]metric.Pass {
	var logs [2][][]metric.Pass
	for _, p := range pairs {
		for arm, b := range p.blocks {
			logs[arm] = append(logs[arm], b.Passes)
		}
	}
	return logs
}

// pairWhere names the rounds of pairs for each arm, as pairLogs lists
// their blocks: "round 3".
func pairWhere(pairs []roundPair) [2][]string {
	var out [2][]string
	for _, p := range pairs {
		for arm := range 2 {
			out[arm] = append(out[arm], fmt.Sprintf("round %d", p.round))
		}
	}
	return out
}

// metricsOfLogs lists the metrics both arms recorded in at least one of
// their blocks or logs, in report order.
func metricsOfLogs(logs [2][][]metric.Pass, perRank bool, primary metric.Key, derived []metric.MetricInfo) []metric.MetricInfo {
	seen := [2]map[string]bool{{}, {}}
	ranks := map[int]bool{}
	for arm := range 2 {
		for _, ps := range logs[arm] {
			for _, p := range ps {
				ranks[p.Rank] = true
				for k := range p.Values {
					seen[arm][k] = true
				}
			}
		}
	}
	var rankList []int
	for r := range ranks {
		rankList = append(rankList, r)
	}
	sort.Ints(rankList)
	// Every metric either arm recorded, known or open (metric.MetricsOf);
	// the primary one even when an arm lacks it.
	all := map[string]bool{primary.Name: !primary.IsZero()}
	for arm := range 2 {
		for n := range seen[arm] {
			all[n] = true
		}
	}
	ms, _ := metric.MetricsOf(all, derived...)
	var out []metric.MetricInfo
	for _, m := range ms {
		if !(seen[journal.Base][m.Name] && seen[journal.Head][m.Name]) && m.Key != primary {
			continue
		}
		if !perRank {
			out = append(out, m)
			continue
		}
		for _, r := range rankList {
			out = append(out, m.AtRank(r))
		}
	}
	return out
}

// distinctMetrics keeps one metric of each set that carried the same
// value in every warm pass of every block of both arms (logs), and returns
// the kept ones in their order with, for each, the names of the ones it
// stands for. Two names can be one quantity in one log generation and two
// in another (Gate is ControlPlane unless H2D spans nest; H2dArena is
// phase.arena_h2d in most logs), so this is decided from the data, never
// from a table of names. A metric that is several rows is one test: it
// must count once in its Holm family and cannot get two verdicts.
//
// The kept metric is the primary one when it is in the set, else the
// first in report order. Under --per-rank only rows of the same rank are
// compared, and no primary row stands for another.
func distinctMetrics(ms []metric.MetricInfo, logs [2][][]metric.Pass, cfg journal.Config, primary metric.Key) ([]metric.MetricInfo, [][]string) {
	prim := func(i int) bool { return isPrimary(ms[i].Key, primary, cfg.PerRank) }
	// The primary rows first, so that one of them is always kept.
	order := make([]int, 0, len(ms))
	for i := range ms {
		if prim(i) {
			order = append(order, i)
		}
	}
	for i := range ms {
		if !prim(i) {
			order = append(order, i)
		}
	}
	keptAs := make([]int, len(ms)) // the row each metric is shown in
	for k, i := range order {
		keptAs[i] = i
		if prim(i) {
			continue
		}
		for _, j := range order[:k] {
			if keptAs[j] == j && sameRank(ms[i].Key, ms[j].Key) && aliasable(ms[i], ms[j]) && sameWarmValues(logs, ms[i].Key, ms[j].Key, cfg.Cold) {
				keptAs[i] = j
				break
			}
		}
	}
	var out []metric.MetricInfo
	var aliases [][]string
	row := make([]int, len(ms))
	for i, m := range ms {
		if keptAs[i] == i {
			row[i] = len(out)
			out = append(out, m)
			aliases = append(aliases, nil)
		}
	}
	for i, m := range ms {
		if keptAs[i] != i {
			r := row[keptAs[i]]
			aliases[r] = append(aliases[r], m.Name)
		}
	}
	return out, aliases
}

// wallFamilies are the families whose rows are wall time of the same
// segments, one quantity under several names.
var wallFamilies = map[string]bool{metric.FamilyControlPlane: true, metric.FamilyPhases: true, metric.FamilyHost: true, metric.FamilyBind: true}

// aliasable reports whether two metrics can be one quantity: of one kind,
// and of one family unless both are wall time of segments. Two counts of
// different things (nvcsw and work.graph_upload.defs) that happen to be
// equal are not one quantity.
func aliasable(a, b metric.MetricInfo) bool {
	if a.Kind != b.Kind || a.Family == metric.FamilyAttrs || b.Family == metric.FamilyAttrs {
		// Open attributes are each their own quantity: a device= and an
		// arena= of the same size, or two kinds' dropped=0, are not one.
		return false
	}
	return a.Family == b.Family || wallFamilies[a.Family] && wallFamilies[b.Family]
}

// sameRank reports whether two metric names are of the same rank under
// --per-rank ("HostOrch@rank1", "phase.host_orch@rank1"), or both pooled.
func sameRank(a, b metric.Key) bool {
	return a.Ranked == b.Ranked && a.Rank == b.Rank
}

// sameWarmValues reports whether metrics a and b have the same value in
// every warm pass of every block of both arms (a pass recording one
// records the other), and some pass records them.
func sameWarmValues(logs [2][][]metric.Pass, a, b metric.Key, cold int) bool {
	seen := false
	for arm := range 2 {
		for _, ps := range logs[arm] {
			for i := range ps {
				p := &ps[i]
				if p.Index < cold {
					continue
				}
				va, oka := p.Value(a)
				vb, okb := p.Value(b)
				if oka != okb || va != vb {
					return false
				}
				seen = seen || oka
			}
		}
	}
	return seen
}

// WarmValues returns the values of the metric k names in the block's warm
// passes (its passes past the first cold ones of each pid), in pass order.
func WarmValues(b *journal.BlockRecord, k metric.Key, cold int) []float64 {
	var out []float64
	for i := range b.Passes {
		p := &b.Passes[i]
		if p.Index < cold {
			continue
		}
		if v, ok := p.Value(k); ok {
			out = append(out, v)
		}
	}
	return out
}

// blockStat reduces a block's warm values to its statistic.
func BlockStat(v []float64, kind journal.BlockStat) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	switch kind {
	case journal.BlockMean:
		sum := 0.0
		for _, x := range s {
			sum += x
		}
		return sum / float64(len(s))
	case journal.BlockMin:
		return s[0]
	}
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func nan() journal.Num { return journal.Num(math.NaN()) }

// newResult returns m's row with no analysis yet: every estimate NaN
// (null in json), so that a row an analysis stops short on shows "-".
func newResult(m metric.MetricInfo, primary bool) MetricResult {
	return MetricResult{
		Key: m.Key, Name: m.Name, Label: m.Label, Family: m.Family, Kind: m.Kind, Unit: m.Kind.Unit(), Primary: primary,
		Delta: nan(), CILo: nan(), CIHi: nan(), BootLo: nan(), BootHi: nan(),
		DeltaMin: nan(), MinCILo: nan(), MinCIHi: nan(), GlobalMin: nan(),
		SignP: nan(), P: nan(), TP: nan(), HolmP: nan(), SigmaD: nan(), MDE: nan(),
		Level: [2]journal.Num{nan(), nan()},
	}
}

// A roundSeries is one metric over the round pairs in which both arms
// recorded it: per arm, each round's block statistic, block minimum and
// block median, and every warm pass.
type roundSeries struct {
	stat, mins, meds, pooled [2][]float64
	p90s                     [2][]float64 // each block's p90 (ceilingBeside)
}

// seriesOf gathers metric's roundSeries from pairs, the rounds in order.
func seriesOf(pairs []roundPair, metric metric.Key, cfg journal.Config) roundSeries {
	var s roundSeries
	for _, p := range pairs {
		var v [2][]float64
		for arm := range 2 {
			v[arm] = WarmValues(p.blocks[arm], metric, cfg.Cold)
		}
		if len(v[journal.Base]) == 0 || len(v[journal.Head]) == 0 {
			continue
		}
		for arm := range 2 {
			s.stat[arm] = append(s.stat[arm], BlockStat(v[arm], cfg.BlockStat))
			s.mins[arm] = append(s.mins[arm], slices.Min(v[arm]))
			s.meds[arm] = append(s.meds[arm], BlockStat(v[arm], journal.BlockMedian))
			s.p90s[arm] = append(s.p90s[arm], Quantile(v[arm], CeilingQuantile))
			s.pooled[arm] = append(s.pooled[arm], v[arm]...)
		}
	}
	return s
}

func analyseMetric(m metric.MetricInfo, pairs []roundPair, cfg journal.Config, primary bool) MetricResult {
	res := newResult(m, primary)
	s := seriesOf(pairs, m.Key, cfg)
	stat, mins, meds, pooled := s.stat, s.mins, s.meds, s.pooled
	res.Rounds = len(stat[journal.Base])
	for arm := range 2 {
		res.Arms[arm] = describeArm(pooled[arm], cfg.Trim, len(stat[arm]), m.Kind.Scale())
	}
	res.NonZero = nonZeroOf(m, pooled)
	if res.Rounds == 0 {
		res.Error = "no round in which both arms recorded it"
		return res
	}
	meanLevels(&res, stat, m.Kind.Scale())
	res.Constant = constant(pooled)
	opts := stats.PairedOptions{Bootstrap: cfg.Bootstrap, Seed: 1}
	pr, err := stats.Paired(stat[journal.Base], stat[journal.Head], opts)
	if err != nil {
		if m.Family == metric.FamilyLanes && errors.Is(err, stats.ErrNonPositive) && countDiff(&res, stat) {
			return res
		}
		res.Error = err.Error()
		signOfDifferences(&res, stat)
		return res
	}
	res.Delta, res.CILo, res.CIHi = journal.Num(pr.Delta), journal.Num(pr.CI.Lo), journal.Num(pr.CI.Hi)
	res.BootLo, res.BootHi = journal.Num(pr.Boot.Lo), journal.Num(pr.Boot.Hi)
	res.SignK, res.SignN, res.SignP = pr.Sign.Agree, pr.Sign.N, journal.Num(pr.Sign.P)
	res.P, res.HolmP, res.Zeros = journal.Num(pr.Wilcoxon.P), journal.Num(pr.Wilcoxon.P), pr.Wilcoxon.Zeros
	res.TP = journal.Num(pr.TP)
	res.SigmaD, res.MDE, res.Sw = journal.Num(pr.SigmaD), journal.Num(pr.MDE), pr.SW
	res.baseLevel = geoMean(stat[journal.Base])
	if lb, lh, err := stats.PairedLevels(stat[journal.Base], stat[journal.Head]); err == nil {
		sc := m.Kind.Scale()
		res.Level, res.LevelOf = [2]journal.Num{journal.Num(lb / sc), journal.Num(lh / sc)}, LevelPaired
	}
	if mr, err := stats.DeltaMin(mins[journal.Base], mins[journal.Head], stats.PairedOptions{}); err == nil {
		res.DeltaMin, res.MinCILo, res.MinCIHi = journal.Num(mr.Delta), journal.Num(mr.CI.Lo), journal.Num(mr.CI.Hi)
		res.GlobalMin = journal.Num(mr.Global)
	} else {
		res.GlobalMin = journal.Num(mr.Global)
	}
	withholdInterval(&res, false)
	ceilingBeside(&res, s.p90s, cfg.Margin)
	if cfg.BlockStat == journal.BlockMin {
		medianBeside(&res, meds, cfg.Margin)
		res.typicalLevel = geoMean(meds[journal.Base])
	}
	return res
}

// BaseLevel returns base's block statistic over the rounds of the paired
// analysis, in the unit of the arms' columns (µs for a time): the level Δ
// is a ratio to, so that Δ·BaseLevel is the change in that unit. NaN
// when the row has no paired analysis.
func (m *MetricResult) BaseLevel() float64 {
	if !(m.baseLevel > 0) {
		return math.NaN()
	}
	return m.baseLevel / m.Kind.Scale()
}

// geoMean returns the geometric mean of v, all above 0 (as the log-ratios
// need them); NaN for none.
func geoMean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

// medianBeside sets m's DeltaMedian, its interval and its verdict (the
// interval against the margin, as the primary row's is, without a p gate)
// from the block medians meds: under --block-stat min the verdict is the
// floor's, and the report shows the typical pass beside it.
func medianBeside(m *MetricResult, meds [2][]float64, margin float64) {
	m.DeltaMedian, m.MedCILo, m.MedCIHi, m.MedianVerdict = nan(), nan(), nan(), &Verdict{Call: stats.Inconclusive}
	pr, err := stats.Paired(meds[journal.Base], meds[journal.Head], stats.PairedOptions{})
	if err != nil {
		return
	}
	m.DeltaMedian = journal.Num(pr.Delta)
	if m.NoInterval != "" {
		return
	}
	m.MedCILo, m.MedCIHi = journal.Num(pr.CI.Lo), journal.Num(pr.CI.Hi)
	*m.MedianVerdict = VerdictOf(stats.Decide(pr.Delta, pr.CI, m.Rounds, margin).Call, m.Kind)
}

// nonZero returns, for a count metric that was 0 in some warm pass of
// either arm, how many warm passes of each arm had it above 0: "k of N",
// the evidence of a discrete event, which a ratio of block statistics
// hides (a median of 0) or cannot form (a log of 0). nil for other kinds
// and for counts above 0 in every pass.
// nonZeroOf is nonZero for metric m: an open attribute (dropped=,
// hblkhd=) is an event only where it happened, > 0 on some warm pass; a
// zero on every pass of both arms says nothing of an event.
func nonZeroOf(m metric.MetricInfo, pooled [2][]float64) []int {
	nz := nonZero(m.Kind, pooled)
	if m.Family == metric.FamilyAttrs && len(nz) == 2 && nz[0] == 0 && nz[1] == 0 {
		return nil
	}
	return nz
}

func nonZero(k metric.MetricKind, pooled [2][]float64) []int {
	if k != metric.KindCount {
		return nil
	}
	var nz [2]int
	for arm := range 2 {
		for _, v := range pooled[arm] {
			if v > 0 {
				nz[arm]++
			}
		}
	}
	if nz[journal.Base] == len(pooled[journal.Base]) && nz[journal.Head] == len(pooled[journal.Head]) {
		return nil
	}
	return nz[:]
}

func describeArm(v []float64, trim, blocks int, scale float64) ArmSummary {
	s := ArmSummary{N: len(v), Blocks: blocks, TrimmedMean: nan(), Median: nan(), Min: nan()}
	ceilingOf(&s, v, scale)
	if len(v) == 0 {
		return s
	}
	if trim < 0 {
		trim = len(v) * stats.TrimPercent / 100
	}
	// Never trim every pass away: keep at least one.
	trim = min(trim, (len(v)-1)/2)
	d, err := stats.Describe(v, trim)
	if err != nil {
		return s
	}
	s.Trim = trim
	s.TrimmedMean, s.Median, s.Min = journal.Num(d.TrimmedMean/scale), journal.Num(d.Median/scale), journal.Num(d.Min/scale)
	return s
}

// decideAll adjusts the p of the rows (holmFamilies, holmPrimaries) and
// calls each row's verdict: the one way both designs decide.
func decideAll(ms []MetricResult, margin float64) {
	holmFamilies(ms)
	gatePrimaries := holmPrimaries(ms)
	for i := range ms {
		Decide(&ms[i], margin, gatePrimaries)
	}
}

// primaryKey is the metric the noise figures are of: the primary row's,
// which under --per-rank is rank 0's.
func (a *Analysis) primaryKey() metric.Key {
	if p := a.PrimaryResult(); p != nil {
		return p.Key
	}
	return a.Primary
}

// holmFamilies replaces the p of each family's secondary rows by its
// Holm-adjusted value over those rows.
func holmFamilies(ms []MetricResult) {
	for _, fam := range metric.Families() {
		var idx []int
		var ps []float64
		for i := range ms {
			if ms[i].Family == fam && !ms[i].Primary && !math.IsNaN(float64(ms[i].P)) {
				idx = append(idx, i)
				ps = append(ps, float64(ms[i].P))
			}
		}
		if len(ps) == 0 {
			continue
		}
		adj := stats.Holm(ps)
		for k, i := range idx {
			ms[i].HolmP = journal.Num(adj[k])
		}
	}
}

// holmPrimaries replaces the p of the primary rows by its Holm-adjusted
// value over them when there are several (--per-rank: one test per rank,
// and a rank that changed by chance must not pass for a regression). It
// reports whether it did: then the primary verdicts are gated as the
// secondary ones are.
func holmPrimaries(ms []MetricResult) bool {
	var idx []int
	var ps []float64
	for i := range ms {
		if ms[i].Primary && !math.IsNaN(float64(ms[i].P)) {
			idx = append(idx, i)
			ps = append(ps, float64(ms[i].P))
		}
	}
	if len(ps) < 2 {
		return false
	}
	for k, p := range stats.Holm(ps) {
		ms[idx[k]].HolmP = journal.Num(p)
	}
	return true
}

// decide calls m's verdict; a secondary row, and a primary one when
// gatePrimary, is faster or slower only when its Holm-adjusted p is below
// 0.05 as well.
func Decide(m *MetricResult, margin float64, gatePrimary bool) {
	if m.Error != "" {
		m.Verdict = NoVerdict
		return
	}
	v := stats.Decide(float64(m.Delta), stats.Interval{Lo: float64(m.CILo), Hi: float64(m.CIHi)}, m.Rounds, margin)
	if !m.Primary || gatePrimary {
		v = v.Gate(float64(m.HolmP))
	}
	m.Verdict = VerdictOf(v.Call, m.Kind)
	m.Gated = v.Gated
	if v.Call == stats.Inconclusive && v.ExtraRounds > 0 {
		m.Extra = v.ExtraRounds
	}
}

func noiseOf(a *Analysis, pairs []roundPair, cfg journal.Config) Noise {
	n := a.Noise
	n.SigmaD, n.SigmaT, n.MDE = nan(), nan(), nan()
	n.Lag1 = [2]journal.Num{nan(), nan()}
	n.Drift = [2]journal.Num{nan(), nan()}
	if p := a.PrimaryResult(); p != nil {
		n.SigmaD, n.MDE = p.SigmaD, p.MDE
		if p.Sw > 0 {
			n.SigmaT = journal.Num(p.Sw / (1 - 2*stats.TrimPercent/100.0))
		}
		n.RoundsForMargin = stats.TrimmedRoundsFor(p.Sw, cfg.Margin)
	}
	primary := a.primaryKey()
	for arm := range 2 {
		var seq, logStat []float64
		for _, p := range pairs {
			v := WarmValues(p.blocks[arm], primary, cfg.Cold)
			if len(v) == 0 {
				continue
			}
			seq = append(seq, v...)
			logStat = append(logStat, math.Log(BlockStat(v, cfg.BlockStat)))
		}
		if r, err := stats.Lag1(seq); err == nil {
			n.Lag1[arm] = journal.Num(r)
		}
		if s, err := stats.DriftSlope(logStat); err == nil {
			n.Drift[arm] = journal.Num(math.Expm1(s))
		}
	}
	return n
}

// The kinds of MetricResult.Level.
const (
	LevelPaired  = "paired"  // geometric means over the rounds Δ keeps
	LevelTrimmed = "trimmed" // each arm's trimmed geometric mean (compare)
	LevelMean    = "mean"    // the mean of the block statistics (no Δ)
	LevelPooled  = "pooled"  // shards' paired levels pooled with the stratified weights
)

// meanLevels sets m's levels to the mean of each arm's block statistics,
// in the row's unit: the levels of a row that has no Δ. A paired or
// trimmed analysis replaces them.
func meanLevels(m *MetricResult, stat [2][]float64, scale float64) {
	for arm := range 2 {
		if len(stat[arm]) == 0 {
			return
		}
	}
	for arm := range 2 {
		var sum float64
		for _, v := range stat[arm] {
			sum += v
		}
		m.Level[arm] = journal.Num(sum / float64(len(stat[arm])) / scale)
	}
	m.LevelOf = LevelMean
}

// constant reports whether every value of both arms is the same one.
func constant(pooled [2][]float64) bool {
	if len(pooled[0]) == 0 || len(pooled[1]) == 0 {
		return false
	}
	v := pooled[0][0]
	for _, p := range pooled {
		for _, x := range p {
			if x != v {
				return false
			}
		}
	}
	return true
}

// roundTable returns the rows of RoundTable for row m: the rounds
// seriesOf pairs, in schedule order.
func roundTable(pairs []roundPair, m *MetricResult, cfg journal.Config) []RoundRow {
	scale := m.Kind.Scale()
	var out []RoundRow
	for _, p := range pairs {
		var st [2]float64
		okBoth := true
		for arm := range 2 {
			v := WarmValues(p.blocks[arm], m.Key, cfg.Cold)
			if len(v) == 0 {
				okBoth = false
				break
			}
			st[arm] = BlockStat(v, cfg.BlockStat)
		}
		if !okBoth {
			continue
		}
		lr := math.NaN()
		if st[0] > 0 && st[1] > 0 {
			lr = math.Log(st[1] / st[0])
		}
		out = append(out, RoundRow{Round: p.round, Stat: [2]journal.Num{journal.Num(st[0] / scale), journal.Num(st[1] / scale)}, LogRatio: journal.Num(lr)})
	}
	return out
}

// signOfDifferences sets, for a row with no paired Δ (a count that was 0
// in a block has no logarithm), the sign agreement of the rounds'
// differences head − base: how many of the rounds that moved moved the
// way most did, and the exact sign test's p. It is what a report can say
// of such a count: that it moved on k of n rounds.
func signOfDifferences(m *MetricResult, stat [2][]float64) {
	up, down := 0, 0
	for i := range stat[journal.Base] {
		switch d := stat[journal.Head][i] - stat[journal.Base][i]; {
		case d > 0:
			up++
		case d < 0:
			down++
		}
	}
	m.SignK, m.SignN = max(up, down), up+down
	if m.SignN > 0 {
		m.SignP = journal.Num(stats.SignTest(m.SignK, m.SignN))
	}
}
