package journal

import (
	"time"

	"github.com/hbgkit/hbgkit/abtest/metric"
)

// NewHeader returns the header of a new campaign.
func NewHeader(cfg Config, arms [2]Arm, seed uint64, version string, argv []string, env Env) (Header, error) {
	if err := cfg.Validate(); err != nil {
		return Header{}, err
	}
	sched, err := NewSchedule(cfg.Order, seed, cfg.Rounds, cfg.Warmup)
	if err != nil {
		return Header{}, err
	}
	h := Header{
		Type: LineHeader, Format: JournalFormat, Hbgkit: version, Created: time.Now().UTC(),
		Command: argv, Config: cfg, Arms: arms, Schedule: sched, Env: env,
		Shards: []string{},
	}
	if cfg.Metric != "" {
		m, _ := metric.LookupMetric(cfg.Metric)
		h.Primary = m.Key
	}
	return h, nil
}
