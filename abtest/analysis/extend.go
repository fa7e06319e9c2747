package analysis

import "fmt"

// SettleRounds is the campaign's rounds to extend it to, so that its
// inconclusive primary verdicts would settle: its rounds plus the most
// extra rounds any comparison's primary result asks for (Extra); 0 when
// none asks, or when the campaign stopped before its last round.
func (a *Analysis) SettleRounds() int {
	extra := 0
	for _, v := range a.Views() {
		if p := v.PrimaryResult(); p != nil && p.Verdict.IsInconclusive() && p.Extra > 0 {
			extra = max(extra, p.Extra)
		}
	}
	if extra == 0 || a.Partial {
		return 0
	}
	return a.Header.Config.Rounds + extra
}

// NoVerdict says why the campaign has no verdict on its primary metric
// (in any comparison of more than two arms, under --per-rank any rank):
// "no verdict on ControlPlane: no warm pass ..."; "" when every primary
// row has one. A campaign that ran to such an end is no success.
func (a *Analysis) NoVerdict() string {
	for _, v := range a.Views() {
		ps := v.PrimaryResults()
		if len(ps) == 0 {
			return "no verdict: no primary metric was measured"
		}
		for _, p := range ps {
			if p.Error != "" || p.Verdict.NA {
				name := p.Label
				if name == "" {
					name = p.Name
				}
				return fmt.Sprintf("no verdict on %s: %s", name, p.Error)
			}
		}
	}
	return ""
}
