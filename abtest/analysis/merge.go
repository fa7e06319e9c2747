package analysis

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// DesignStratified is the design of a merged report: the shards of one
// campaign, each a stratum of rounds paired within it (docs/ab.md
// "Shards").
const DesignStratified Design = "stratified"

// StratifiedMethod names the merged analysis in reports.
const StratifiedMethod = "inverse-variance weighted mean of the shards' 20%-trimmed mean log-ratios (stratified by shard; t test on the summed degrees of freedom); heterogeneity: Cochran's Q"

// A ShardRow is one shard of a merged report: the shard, its journal,
// and its own paired analysis of the primary metric.
type ShardRow struct {
	Shard   journal.ShardInfo `json:"shard"`
	Journal string            `json:"journal"`
	Planned int               `json:"planned_rounds"`
	Rounds  int               `json:"complete_rounds"`
	Delta   journal.Num       `json:"delta"`
	CILo    journal.Num       `json:"ci_lo"`
	CIHi    journal.Num       `json:"ci_hi"`
	P       journal.Num       `json:"p"`
	Verdict Verdict           `json:"verdict"`
	// Weight is the shard's share of the pooled primary estimate's
	// inverse-variance weight (0..1).
	Weight journal.Num `json:"weight"`
	// Outlier: the shard's interval excludes the pooled Δ.
	Outlier bool `json:"outlier"`
}

// Heterogeneity is Cochran's Q of the shards' primary estimates.
type Heterogeneity struct {
	Q  journal.Num `json:"q"`
	DF int         `json:"df"`
	P  journal.Num `json:"p"`
	I2 journal.Num `json:"i2"`
}

// A Merged is the report of a campaign's shards: the pooled, stratified
// analysis of every metric, one row per shard, and how far the shards
// disagree.
type Merged struct {
	Schema        int           `json:"schema"` // AnalysisSchema
	Design        Design        `json:"design"` // DesignStratified
	Method        string        `json:"method"`
	Campaign      string        `json:"campaign"`
	ShardCount    int           `json:"shard_count"` // N of --shard I/N
	Shards        []ShardRow    `json:"shards"`
	Heterogeneity Heterogeneity `json:"heterogeneity"`
	// Pooled is the merged analysis: its metrics' Δ, interval and p are
	// the stratified ones; its per-arm columns describe every shard's warm
	// passes together. Its header is the first shard's, with Shards
	// naming every shard.
	Pooled   *Analysis `json:"pooled"`
	Warnings []string  `json:"warnings"`

	Journals []*journal.Journal `json:"-"`
}

// CheckMergeable refuses journals that are not the shards of one
// campaign: a journal without a shard, another campaign, seed or shard
// count, another config, arms, primary metric or ruler, or one shard
// given twice. The error lists every difference against the first
// journal.
func CheckMergeable(js []*journal.Journal) error {
	if len(js) == 0 {
		return fmt.Errorf("no journal to merge")
	}
	var diffs []string
	for _, j := range js {
		if j.Header.Shard == nil {
			diffs = append(diffs, fmt.Sprintf("%s is not a shard's journal (run with --shard I/N --campaign ID)", j.Path))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("cannot merge:\n  %s", strings.Join(diffs, "\n  "))
	}
	first := js[0]
	f := first.Header
	seen := map[int]string{}
	for _, j := range js {
		h, name := j.Header, j.Path
		if prev, dup := seen[h.Shard.Index]; dup {
			diffs = append(diffs, fmt.Sprintf("shard %d/%d given twice: %s and %s", h.Shard.Index, h.Shard.Count, prev, name))
			continue
		}
		seen[h.Shard.Index] = name
		if j == first {
			continue
		}
		d := func(what string, a, b any) {
			if fmt.Sprint(a) != fmt.Sprint(b) {
				diffs = append(diffs, fmt.Sprintf("%s: %s %v, %s %v", what, first.Path, a, name, b))
			}
		}
		d("campaign", f.Shard.Campaign, h.Shard.Campaign)
		d("shard count", f.Shard.Count, h.Shard.Count)
		d("campaign seed", f.Shard.CampaignSeed, h.Shard.CampaignSeed)
		diffs = append(diffs, configDiff(first.Path, name, f.Config, h.Config)...)
		for arm := range 2 {
			if !f.Arms[arm].Equal(h.Arms[arm]) {
				diffs = append(diffs, fmt.Sprintf("%s arm: %s %s, %s %s", journal.ArmNames[arm], first.Path, f.Arms[arm].Spec, name, h.Arms[arm].Spec))
			}
		}
		if f.Primary != (metric.Key{}) && h.Primary != (metric.Key{}) {
			d("primary metric", f.Primary, h.Primary)
		}
		if f.Ruler != "" && h.Ruler != "" && f.Ruler != h.Ruler {
			diffs = append(diffs, fmt.Sprintf("ruler: %s %s, %s %s (the shards did not measure the same way):\n%s",
				first.Path, f.RulerHash, name, h.RulerHash, strings.TrimRight(journal.RulerDiff(f.Ruler, h.Ruler), "\n")))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("cannot merge: the journals are not shards of one campaign:\n  %s", strings.Join(diffs, "\n  "))
	}
	return nil
}

// configDiff lists the config fields a and b differ in, by their journal
// names.
func configDiff(an, bn string, a, b journal.Config) []string {
	var ma, mb map[string]any
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	_ = json.Unmarshal(ja, &ma)
	_ = json.Unmarshal(jb, &mb)
	// Both configs' keys: a field left out when empty (omitempty, such
	// as cpus) is in one only.
	keys := make([]string, 0, len(ma)+len(mb))
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	val := func(m map[string]any, k string) any {
		if v, ok := m[k]; ok {
			return v
		}
		return "none"
	}
	var out []string
	for _, k := range keys {
		if va, vb := val(ma, k), val(mb, k); fmt.Sprint(va) != fmt.Sprint(vb) {
			out = append(out, fmt.Sprintf("config %s: %s %v, %s %v", k, an, va, bn, vb))
		}
	}
	return out
}

// Merge analyses the shards of one campaign (CheckMergeable first): each
// shard alone, then every metric pooled over the shards with
// stats.Stratified, rounds paired within their shard. Verdicts follow the
// single-campaign rules (decideAll) on the pooled interval and p.
func Merge(js []*journal.Journal) (*Merged, error) {
	if err := CheckMergeable(js); err != nil {
		return nil, err
	}
	js = append([]*journal.Journal(nil), js...)
	sort.Slice(js, func(a, b int) bool { return js[a].Header.Shard.Index < js[b].Header.Shard.Index })
	first := js[0].Header
	m := &Merged{Schema: AnalysisSchema, Design: DesignStratified, Method: StratifiedMethod,
		Campaign: first.Shard.Campaign, ShardCount: first.Shard.Count, Journals: js,
		Heterogeneity: Heterogeneity{Q: nan(), P: nan(), I2: nan()}}
	pooled := &Analysis{Schema: AnalysisSchema, Design: DesignStratified, Test: "stratified t (inverse-variance)",
		Header: first, Margin: first.Config.Margin}
	pooled.Header.Shard = nil
	pooled.Header.Shards = nil
	shardAs := make([]*Analysis, len(js))
	pairs := make([][]roundPair, len(js))
	for k, j := range js {
		a := Analyze(j)
		shardAs[k] = a
		scratch := &Analysis{}
		pairs[k] = completePairs(j, scratch)
		pooled.Header.Shards = append(pooled.Header.Shards, j.Header.Shard.Label())
		pooled.Planned += a.Planned
		pooled.Complete += a.Complete
		pooled.Partial = pooled.Partial || a.Partial
		pooled.AA = a.AA
		pooled.AAReason = a.AAReason
		if pooled.Primary == (metric.Key{}) {
			pooled.Primary = a.Primary
		}
		for arm := range 2 {
			pooled.Noise.Failures[arm] += a.Noise.Failures[arm]
		}
		pooled.Noise.Dropped += a.Noise.Dropped
		for _, w := range a.Warnings {
			m.Warnings = append(m.Warnings, fmt.Sprintf("shard %s: %s", j.Header.Shard.Label(), w))
		}
		row := ShardRow{Shard: *j.Header.Shard, Journal: j.Path, Planned: a.Planned, Rounds: a.Complete,
			Delta: nan(), CILo: nan(), CIHi: nan(), P: nan(), Weight: nan(), Verdict: NoVerdict}
		if p := a.PrimaryResult(); p != nil {
			row.Delta, row.CILo, row.CIHi, row.P, row.Verdict = p.Delta, p.CILo, p.CIHi, p.P, p.Verdict
		}
		m.Shards = append(m.Shards, row)
	}
	if missing := missingShards(js); len(missing) > 0 {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%d of %d shards merged; missing: %s (the pooled result covers only the shards given)",
			len(js), first.Shard.Count, strings.Join(missing, ", ")))
	}
	cfg := first.Config
	for _, mi := range metricsOfShards(shardAs) {
		res, sr := poolMetric(mi, pairs, cfg, isPrimary(mi.Key, pooled.Primary, cfg.PerRank))
		if res.Primary && res.Key == primaryOf(pooled.Primary, shardAs) && sr != nil {
			m.heterogeneity(sr)
		}
		pooled.Metrics = append(pooled.Metrics, res)
	}
	decideAll(pooled.Metrics, cfg.Margin)
	mergeChecks(pooled, js, shardAs)
	pooled.Noise.SigmaD, pooled.Noise.MDE = nan(), nan()
	pooled.Noise.Lag1, pooled.Noise.Drift = [2]journal.Num{nan(), nan()}, [2]journal.Num{nan(), nan()}
	if h := m.Heterogeneity; !math.IsNaN(float64(h.P)) {
		var sick []string
		for _, r := range m.Shards {
			if r.Outlier {
				sick = append(sick, fmt.Sprintf("shard %s Δ %s %s", r.Shard.Label(), Pct(r.Delta), Ci(r.CILo, r.CIHi)))
			}
		}
		if float64(h.P) < stats.Alpha || len(sick) > 0 {
			w := fmt.Sprintf("the shards disagree beyond their intervals (Cochran's Q %.2f on %d df, p %s, I² %.0f%%)", float64(h.Q), h.DF, Pval(h.P), 100*float64(h.I2))
			if len(sick) > 0 {
				w += ": " + strings.Join(sick, "; ") + " excludes the pooled Δ"
			}
			m.Warnings = append(m.Warnings, w+"; a sick card or host? Check it, or rerun its shard")
		}
	}
	pooled.Warnings = m.Warnings
	m.Pooled = pooled
	return m, nil
}

// heterogeneity records the primary metric's Cochran's Q and each shard's
// weight and outlier flag.
func (m *Merged) heterogeneity(sr *stats.StratifiedResult) {
	m.Heterogeneity = Heterogeneity{Q: journal.Num(sr.Q), DF: len(sr.Strata) - 1, P: journal.Num(sr.QP), I2: journal.Num(sr.I2)}
	total := 0.0
	for _, s := range sr.Strata {
		total += s.Weight
	}
	for k, s := range sr.Strata {
		m.Shards[k].Weight = journal.Num(s.Weight / total)
		m.Shards[k].Outlier = s.Outlier
	}
}

// primaryOf is the key of the primary row the shards' noise figures are
// of: the primary metric, or under --per-rank rank 0's row.
func primaryOf(primary metric.Key, as []*Analysis) metric.Key {
	for _, a := range as {
		if p := a.PrimaryResult(); p != nil {
			return p.Key
		}
	}
	return primary
}

// missingShards names the shards of 0..N-1 not among js.
func missingShards(js []*journal.Journal) []string {
	have := map[int]bool{}
	for _, j := range js {
		have[j.Header.Shard.Index] = true
	}
	var out []string
	n := js[0].Header.Shard.Count
	for i := 0; i < n; i++ {
		if !have[i] {
			out = append(out, fmt.Sprintf("%d/%d", i, n))
		}
	}
	return out
}

// metricsOfShards lists the metrics of the shards' analyses, in the first
// shard's order, each once.
func metricsOfShards(as []*Analysis) []metric.MetricInfo {
	seen := map[metric.Key]bool{}
	var out []metric.MetricInfo
	for _, a := range as {
		for _, r := range a.Metrics {
			if seen[r.Key] {
				continue
			}
			seen[r.Key] = true
			out = append(out, metric.MetricInfo{Key: r.Key, Name: r.Name, Label: r.Label, Family: r.Family, Kind: r.Kind})
		}
	}
	return out
}

// poolMetric is the stratified analysis of one metric over the shards'
// round pairs: the paired log-ratios of each shard, pooled by
// stats.Stratified; the arms' columns describe the warm passes of every
// shard together.
func poolMetric(mi metric.MetricInfo, pairs [][]roundPair, cfg journal.Config, primary bool) (MetricResult, *stats.StratifiedResult) {
	res := newResult(mi, primary)
	var d [][]float64
	var all []float64
	var passes [2][]float64
	var levels [][2]float64 // each shard's PairedLevels
	for k, ps := range pairs {
		s := seriesOf(ps, mi.Key, cfg)
		lb, lh, err := stats.PairedLevels(s.stat[journal.Base], s.stat[journal.Head])
		if err != nil {
			lb, lh = math.NaN(), math.NaN()
		}
		levels = append(levels, [2]float64{lb, lh})
		for arm := range 2 {
			passes[arm] = append(passes[arm], s.pooled[arm]...)
			res.Arms[arm].Blocks += len(s.stat[arm])
		}
		lr, err := stats.LogRatios(s.stat[journal.Base], s.stat[journal.Head])
		if err != nil {
			res.Error = fmt.Sprintf("shard %d: %v", k, err)
		}
		d = append(d, lr)
		all = append(all, lr...)
		res.Rounds += len(lr)
	}
	for arm := range 2 {
		res.Arms[arm] = describeArm(passes[arm], cfg.Trim, res.Arms[arm].Blocks, mi.Kind.Scale())
	}
	if res.Error != "" {
		return res, nil
	}
	sr, err := stats.Stratified(d, 0)
	if err != nil {
		res.Error = err.Error()
		return res, nil
	}
	res.Delta, res.CILo, res.CIHi = journal.Num(sr.Delta), journal.Num(sr.CI.Lo), journal.Num(sr.CI.Hi)
	res.P, res.HolmP = journal.Num(sr.P), journal.Num(sr.P)
	pooledLevels(&res, levels, sr, mi.Kind.Scale())
	for _, x := range all {
		if x != 0 {
			res.SignN++
			if (x > 0) == (sr.LogMean > 0) {
				res.SignK++
			}
		}
	}
	res.SignP = journal.Num(stats.SignTest(res.SignK, res.SignN))
	return res, &sr
}

// shardName is a shard's journal as a report shows it: its base name.
func ShardName(r ShardRow) string { return filepath.Base(r.Journal) }

// pooledLevels sets a merged row's levels: each arm's shard levels
// (stats.PairedLevels) pooled on the log scale with the stratified
// analysis's inverse-variance weights, so that, as for one campaign,
// Level[head]/Level[base] − 1 is the pooled Δ.
func pooledLevels(m *MetricResult, levels [][2]float64, sr stats.StratifiedResult, scale float64) {
	if len(levels) != len(sr.Strata) {
		return
	}
	var w, lb, lh float64
	for k, st := range sr.Strata {
		if math.IsNaN(levels[k][0]) || math.IsNaN(levels[k][1]) {
			return
		}
		w += st.Weight
		lb += st.Weight * math.Log(levels[k][0])
		lh += st.Weight * math.Log(levels[k][1])
	}
	if !(w > 0) {
		return
	}
	m.Level = [2]journal.Num{journal.Num(math.Exp(lb/w) / scale), journal.Num(math.Exp(lh/w) / scale)}
	m.LevelOf = LevelPooled
}
