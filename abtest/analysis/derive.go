package analysis

import (
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
)

// withDerived returns j with the --derive metrics of its config
// (journal.Config.Derive) computed on every pass of every block, and
// their descriptions; j itself is not changed. A derivation that does
// not parse (a journal edited by hand: the config is validated before a
// campaign) is left out with a warning.
func withDerived(j *journal.Journal) (*journal.Journal, []metric.MetricInfo) {
	if len(j.Header.Config.Derive) == 0 {
		return j, nil
	}
	ds, err := metric.ParseDerivations(j.Header.Config.Derive)
	if err != nil {
		c := *j
		c.Warnings = append(append([]string(nil), j.Warnings...), "derived metrics left out: "+err.Error())
		return &c, nil
	}
	c := *j
	c.Blocks = make([]journal.BlockRecord, len(j.Blocks))
	for i, b := range j.Blocks {
		b.Passes = metric.WithDerived(b.Passes, ds)
		c.Blocks[i] = b
	}
	infos := make([]metric.MetricInfo, len(ds))
	for i, d := range ds {
		infos[i] = d.Info()
	}
	return &c, infos
}
