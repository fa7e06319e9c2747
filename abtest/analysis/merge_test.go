package analysis

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/hbgkit/hbgkit/abtest/metric"
)

// shardJournal is a header-only journal of shard index of campaign.
func shardJournal(t *testing.T, path, campaign string, index int) *journal.Journal {
	t.Helper()
	b, err := journal.ParseEmbedded("embedded:")
	if err != nil {
		t.Fatal(err)
	}
	h, err := journal.ParseEmbedded("embedded:delay_us=2000")
	if err != nil {
		t.Fatal(err)
	}
	return &journal.Journal{Path: path, Header: journal.Header{Config: journaltest.Config(), Arms: [2]journal.Arm{b, h}, Primary: metric.PooledKey("ControlPlane"),
		Ruler: "hbgkit-harness {arm} rounds=5 nproc=2", RulerHash: "r1",
		Shard: &journal.ShardInfo{Campaign: campaign, Index: index, Count: 2, CampaignSeed: 7, Host: "h" + path}}}
}

func TestCheckMergeableRefuses(t *testing.T) {
	ok := func() (*journal.Journal, *journal.Journal) {
		return shardJournal(t, "a.jsonl", "c1", 0), shardJournal(t, "b.jsonl", "c1", 1)
	}
	a, b := ok()
	if err := CheckMergeable([]*journal.Journal{a, b}); err != nil {
		t.Fatalf("two shards of one campaign: %v", err)
	}
	for _, tc := range []struct {
		name  string
		spoil func(b *journal.Journal)
		want  []string
	}{
		{"campaign", func(b *journal.Journal) { b.Header.Shard.Campaign = "c2" }, []string{"campaign: a.jsonl c1, b.jsonl c2"}},
		{"config", func(b *journal.Journal) { b.Header.Config.Block = 7 }, []string{"config block: a.jsonl 5, b.jsonl 7"}},
		{"rounds", func(b *journal.Journal) { b.Header.Config.Rounds = 12 }, []string{"config rounds: a.jsonl 10, b.jsonl 12"}},
		{"cpus", func(b *journal.Journal) { b.Header.Config.CPUs = "1" }, []string{"config cpus: a.jsonl none, b.jsonl 1"}},
		{"arms", func(b *journal.Journal) {
			b.Header.Arms[journal.Head], _ = journal.ParseEmbedded("embedded:delay_us=3000")
		}, []string{"head arm: a.jsonl", "delay_us=3000"}},
		{"ruler", func(b *journal.Journal) {
			b.Header.Ruler, b.Header.RulerHash = "hbgkit-harness {arm} rounds=5 nproc=8", "r2"
		},
			[]string{"ruler: a.jsonl r1, b.jsonl r2", "- nproc=2", "+ nproc=8"}},
		{"duplicate", func(b *journal.Journal) { b.Header.Shard.Index = 0 }, []string{"shard 0/2 given twice: a.jsonl and b.jsonl"}},
		{"count", func(b *journal.Journal) { b.Header.Shard.Count = 3 }, []string{"shard count: a.jsonl 2, b.jsonl 3"}},
		{"not a shard", func(b *journal.Journal) { b.Header.Shard = nil }, []string{"b.jsonl is not a shard's journal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := ok()
			tc.spoil(b)
			err := CheckMergeable([]*journal.Journal{a, b})
			if err == nil {
				t.Fatal("merged")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	a, _ = ok()
	if err := CheckMergeable([]*journal.Journal{a, a}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("the same journal twice: %v", err)
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i, n int
		err  string
	}{
		{"0/2", 0, 2, ""}, {" 7/8 ", 7, 8, ""}, {"2/2", 0, 0, "want I from 0 to 1"}, {"-1/2", 0, 0, "want I from 0"},
		{"1", 0, 0, "want I/N"}, {"a/b", 0, 0, "whole numbers"}, {"0/0", 0, 0, "want 1 to"}, {"0/99999", 0, 0, "want 1 to"},
	} {
		i, n, err := journal.ParseShard(tc.in)
		if tc.err == "" && (err != nil || i != tc.i || n != tc.n) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseShard(%q) = %d, %d, %v; want %d, %d, %q", tc.in, i, n, err, tc.i, tc.n, tc.err)
		}
	}
	for _, id := range []string{"", ".x", "-x", "a/b", "a b", strings.Repeat("x", 65)} {
		if journal.CheckCampaignID(id) == nil {
			t.Errorf("campaign id %q accepted", id)
		}
	}
	if journal.CheckCampaignID("12345_nightly-v1.2") != nil {
		t.Error("a plain campaign id refused")
	}
	if s0 := journal.ShardSeed(1, 0); s0 == journal.ShardSeed(1, 1) || s0 != journal.ShardSeed(1, 0) || s0 == journal.ShardSeed(2, 0) {
		t.Error("shard seeds should differ by shard and repeat")
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/2", "7/8", "1", "a/b", "-1/2", "0/0", "4095/4096", "1/2/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, n, err := journal.ParseShard(s)
		if err == nil && !(0 <= i && i < n && n <= journal.MaxShards) {
			t.Fatalf("ParseShard(%q) = %d, %d", s, i, n)
		}
	})
}

// synthShard is a synthJournal made shard index of 2 of campaign "s",
// its head ratio times the base in every round (with a little spread).
func SynthShard(t *testing.T, index int, host string, ratio float64) *journal.Journal {
	t.Helper()
	var vals [][2][]float64
	for i := range 10 {
		b := 1000 * (1 + 0.01*float64(i%3))
		h := 1000 * ratio * (1 + 0.01*float64(i%4))
		vals = append(vals, [2][]float64{{b, b, b}, {h, h, h}})
	}
	j := journaltest.Synth(t, vals)
	j.Path = fmt.Sprintf("/home/me/.hbgbench/s/shard-%dof2-%s.jsonl", index, host)
	j.Header.Shard = &journal.ShardInfo{Campaign: "s", Index: index, Count: 2, CampaignSeed: 3, Host: host, Card: fmt.Sprint(index)}
	return j
}
