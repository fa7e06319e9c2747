package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// KindLogs is the kind of an arm of compare: logs captured elsewhere.
const KindLogs journal.ArmKind = "logs"

// RankSumTest is the test of compare's p.
const RankSumTest = "wilcoxon rank-sum"

// CompareOptions are the inputs of Compare.
type CompareOptions struct {
	Base, Head []string // log files, one block each
	// Config supplies Cold, BlockStat, Trim, Margin and Metric; the rest
	// is ignored.
	Config  journal.Config
	Version string   // hbgkit version, for the report
	Command []string // the command line, for the report
}

// ReadLogs reads compare's logs into a journal of its own: one block per
// log, numbered within its arm, every block counted. A log with no pass is
// an error naming it.
func ReadLogs(opts CompareOptions) (*journal.Journal, error) {
	if len(opts.Base) == 0 || len(opts.Head) == 0 {
		return nil, errors.New("compare: give at least one --base and one --head log")
	}
	cfg := opts.Config
	cfg.Rounds = max(len(opts.Base), len(opts.Head))
	cfg.Block, cfg.Warmup, cfg.Order = 0, 0, ""
	j := &journal.Journal{Unpaired: true}
	// Created stays zero: when the logs were captured is not known, and
	// the report is a function of the logs alone.
	j.Header = journal.Header{
		Type: journal.LineHeader, Format: journal.JournalFormat, Hbgkit: opts.Version,
		Command: opts.Command, Config: cfg, Shards: []string{},
		Arms: [2]journal.Arm{{Kind: KindLogs, Spec: strings.Join(opts.Base, " ")}, {Kind: KindLogs, Spec: strings.Join(opts.Head, " ")}},
	}
	var all []metric.Pass
	for arm, paths := range [2][]string{opts.Base, opts.Head} {
		for i, path := range paths {
			bp, err := metric.ReadBlockLog([]string{path})
			if err != nil {
				// The reader's error names the file already.
				if errors.Is(err, fs.ErrNotExist) && strings.ContainsAny(path, "*?[") {
					return nil, fmt.Errorf("compare: %w (no file matches the pattern, so the shell passed it on as it was)", err)
				}
				return nil, fmt.Errorf("compare: %w", err)
			}
			if len(bp.Passes) == 0 {
				return nil, fmt.Errorf("compare: %s has no passes (no chip.run span and no bind phase= line)", path)
			}
			for _, w := range bp.Warnings {
				j.Warnings = append(j.Warnings, path+": "+w)
			}
			j.Blocks = append(j.Blocks, journal.BlockRecord{Type: journal.LineBlock, Round: i + 1, Arm: journal.ArmNames[arm], Attempt: 1, Try: 1,
				Seq: len(j.Blocks) + 1, Stamp: bp.Stamp, Log: path, Passes: bp.Passes, Warnings: bp.Warnings})
			all = append(all, bp.Passes...)
		}
	}
	if err := LogsHeader(j, all, cfg.Metric); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	return j, nil
}

// LogsHeader completes the header of a journal built from captured logs
// (ReadLogs, and compare --paired's): the primary metric, --metric's
// (name) or chosen from the passes all, and the ruler, the first block's
// stamp. It returns an error for an unknown --metric.
func LogsHeader(j *journal.Journal, all []metric.Pass, name string) error {
	j.Header.Primary = metric.ChoosePrimary(all)
	if name != "" {
		m, ok := metric.LookupMetric(name)
		if !ok {
			return fmt.Errorf("--metric %q: unknown metric; known: %s", name, metric.MetricNames())
		}
		j.Header.Primary = m.Key
	}
	j.Header.Ruler = j.Blocks[0].Stamp
	j.Header.RulerHash = journal.RulerHash(j.Header.Ruler)
	return nil
}

// AnalyzeUnpaired analyses compare's journal (ReadLogs): per metric, one
// block statistic per log, and with at least 2 logs per arm Δ with Yuen's
// interval on the log scale and the Wilcoxon rank-sum p (stats.Unpaired).
// With a single log on an arm it describes the passes only: no interval
// and no test, because the passes of one process are not independent
// samples of the arm.
func AnalyzeUnpaired(j *journal.Journal) *Analysis {
	j, derived := withDerived(j)
	h := j.Header
	cfg := h.Config
	var logs [2][][]metric.Pass
	var where [2][]string
	a := &Analysis{Schema: AnalysisSchema, Design: DesignUnpaired, Test: RankSumTest, Header: h,
		Primary: h.Primary, Margin: cfg.Margin, Logs: make([][]LogInfo, 2)}
	a.Warnings = append(a.Warnings, j.Warnings...)
	for _, cb := range j.Counted() {
		logs[cb.Arm] = append(logs[cb.Arm], cb.Block.Passes)
		w := fmt.Sprintf("log %d", len(logs[cb.Arm]))
		if cb.Block.Log != "" {
			w += " (" + filepath.Base(cb.Block.Log) + ")"
		}
		where[cb.Arm] = append(where[cb.Arm], w)
		a.Logs[cb.Arm] = append(a.Logs[cb.Arm], LogInfo{Path: cb.Block.Log, Stamp: cb.Block.Stamp, Passes: len(cb.Block.Passes)})
	}
	n := min(len(logs[journal.Base]), len(logs[journal.Head]))
	a.Planned, a.Complete = n, n
	if n < 2 {
		a.Design, a.Test = DesignDescriptive, ""
	} else if len(logs[journal.Base]) < 4 || len(logs[journal.Head]) < 4 {
		a.Warnings = append(a.Warnings, fmt.Sprintf("only %d base and %d head logs: with fewer than 4 per arm no rank-sum p can fall below 0.05, and %s",
			len(logs[journal.Base]), len(logs[journal.Head]), intervalWarning(n)))
	}
	a.WorkDiffs = WorkDiffs(logs, where, cfg.Cold)
	names, aliases := distinctMetrics(metricsOfLogs(logs, cfg.PerRank, h.Primary, derived), logs, cfg, h.Primary)
	for i, m := range names {
		res := analyseUnpaired(m, logs, cfg, isPrimary(m.Key, h.Primary, cfg.PerRank), a.Design)
		res.Aliases = aliases[i]
		a.Metrics = append(a.Metrics, res)
	}
	decideAll(a.Metrics, cfg.Margin)
	callDetermined(a, cfg.Margin)
	stampSwitches(a)
	a.Noise = unpairedNoise(a, logs, cfg)
	withholdEstimates(a)
	return a
}

func warmOf(ps []metric.Pass, metric metric.Key, cold int) []float64 {
	b := journal.BlockRecord{Passes: ps}
	return WarmValues(&b, metric, cold)
}

func analyseUnpaired(m metric.MetricInfo, logs [2][][]metric.Pass, cfg journal.Config, primary bool, design Design) MetricResult {
	res := newResult(m, primary)
	var stat, mins, pooled [2][]float64
	for arm := range 2 {
		for _, ps := range logs[arm] {
			v := warmOf(ps, m.Key, cfg.Cold)
			if len(v) == 0 {
				continue
			}
			stat[arm] = append(stat[arm], BlockStat(v, cfg.BlockStat))
			mins[arm] = append(mins[arm], slices.Min(v))
			pooled[arm] = append(pooled[arm], v...)
		}
		res.Arms[arm] = describeArm(pooled[arm], cfg.Trim, len(stat[arm]), m.Kind.Scale())
	}
	res.NonZero = nonZeroOf(m, pooled)
	res.Rounds = min(len(stat[journal.Base]), len(stat[journal.Head]))
	if res.Rounds == 0 {
		res.Error = "no warm pass of it in one of the arms"
		return res
	}
	meanLevels(&res, stat, m.Kind.Scale())
	res.Constant = constant(pooled)
	res.GlobalMin = journal.Num(slices.Min(mins[journal.Head])/slices.Min(mins[journal.Base]) - 1)
	if design == DesignDescriptive || len(stat[journal.Base]) < 2 || len(stat[journal.Head]) < 2 {
		// Descriptive only: the ratio of the arms' levels, each the
		// trimmed geometric mean of its logs' block statistics (one log:
		// its block statistic, so --block-stat min compares the fastest
		// warm pass of each), as the unpaired Δ is, without an interval.
		lb, lh := stats.TrimmedGeoMean(stat[journal.Base]), stats.TrimmedGeoMean(stat[journal.Head])
		res.Delta = journal.Num(lh/lb - 1)
		sc := m.Kind.Scale()
		res.Level, res.LevelOf = [2]journal.Num{journal.Num(lb / sc), journal.Num(lh / sc)}, LevelTrimmed
		res.DeltaMin = res.GlobalMin
		res.Error = "one log on an arm: no interval can be computed honestly"
		return res
	}
	ur, err := stats.Unpaired(stat[journal.Base], stat[journal.Head], 0)
	if err != nil {
		if m.Family == metric.FamilyLanes && errors.Is(err, stats.ErrNonPositive) && unpairedCountDiff(&res, stat) {
			return res
		}
		res.Error = err.Error()
		return res
	}
	res.Delta, res.CILo, res.CIHi = journal.Num(ur.Delta), journal.Num(ur.CI.Lo), journal.Num(ur.CI.Hi)
	if lb, lh := stats.TrimmedGeoMean(stat[journal.Base]), stats.TrimmedGeoMean(stat[journal.Head]); lb > 0 && lh > 0 {
		sc := m.Kind.Scale()
		res.Level, res.LevelOf = [2]journal.Num{journal.Num(lb / sc), journal.Num(lh / sc)}, LevelTrimmed
	}
	res.P, res.HolmP = journal.Num(ur.RankSum.P), journal.Num(ur.RankSum.P)
	res.SigmaD = journal.Num(math.Hypot(ur.SigmaA, ur.SigmaB))
	res.MDE = journal.Num(ur.MDE)
	if mr, err := stats.Unpaired(mins[journal.Base], mins[journal.Head], 0); err == nil {
		res.DeltaMin, res.MinCILo, res.MinCIHi = journal.Num(mr.Delta), journal.Num(mr.CI.Lo), journal.Num(mr.CI.Hi)
	}
	withholdInterval(&res, true)
	return res
}

func unpairedNoise(a *Analysis, logs [2][][]metric.Pass, cfg journal.Config) Noise {
	n := Noise{SigmaD: nan(), MDE: nan(), Lag1: [2]journal.Num{nan(), nan()}, Drift: [2]journal.Num{nan(), nan()}}
	if p := a.PrimaryResult(); p != nil {
		n.SigmaD, n.MDE = p.SigmaD, p.MDE
		n.RoundsForMargin = stats.RoundsFor(float64(p.SigmaD), cfg.Margin)
	}
	primary := a.primaryKey()
	for arm := range 2 {
		var seq []float64
		for _, ps := range logs[arm] {
			seq = append(seq, warmOf(ps, primary, cfg.Cold)...)
		}
		if r, err := stats.Lag1(seq); err == nil {
			n.Lag1[arm] = journal.Num(r)
		}
	}
	return n
}
