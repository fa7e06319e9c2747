package analysis

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
