package analysis

import (
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// SameAddedTime reports whether the floor and the typical pass moved by
// the same time, as a constant added to every pass moves them (a delay, a
// copy): then their ratios differ only because the floor is the smaller
// base, and the shift of each, in the metric's unit, lies in the other's
// interval. false when the levels are unknown.
func (m *MetricResult) SameAddedTime() bool {
	f, t := m.baseLevel, m.typicalLevel
	if !(f > 0 && t > 0) {
		return false
	}
	floor := stats.Interval{Lo: f * float64(m.CILo), Hi: f * float64(m.CIHi)}
	typical := stats.Interval{Lo: t * float64(m.MedCILo), Hi: t * float64(m.MedCIHi)}
	return floor.Contains(t*float64(m.DeltaMedian)) || typical.Contains(f*float64(m.Delta))
}
