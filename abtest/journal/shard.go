package journal

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A shard is a sub-campaign of its own rounds on one card of one host
// (docs/ab-operations.md "Shards: one campaign over many cards and hosts"): shard I of a campaign of N shards runs --rounds
// rounds of its own, from a seed stream derived from the campaign seed and
// I, into a journal of its own. Rounds never span two shards, so the
// merged analysis (merge.go) pairs within a shard and treats each shard
// as a stratum.

// MaxShards bounds N of --shard I/N.
const MaxShards = 4096

// HostEnv overrides the host name a shard records (os.Hostname otherwise):
// for tests that run two "hosts" on one machine, and for hosts whose name
// says nothing.
const HostEnv = "HBGBENCH_HOST"

// CardEnv is the variable naming the card(s) a process sees on an Ascend
// host; a shard records it as its card.
const CardEnv = "ASCEND_RT_VISIBLE_DEVICES"

// shardStream is the PCG stream constant of shard seeds, "shrd" in ASCII,
// apart from the schedule's "rmit".
const shardStream uint64 = 0x73687264

// ShardInfo is what a shard journal's header says of its shard: which
// campaign, which shard of how many, and where it ran.
type ShardInfo struct {
	Campaign string `json:"campaign"`
	Index    int    `json:"index"` // 0..Count-1
	Count    int    `json:"count"`
	// CampaignSeed is the seed every shard of the campaign shares; the
	// shard's schedule is drawn from ShardSeed(CampaignSeed, Index).
	CampaignSeed uint64 `json:"campaign_seed"`
	Host         string `json:"host"`
	Card         string `json:"card,omitempty"`
}

// check refuses a shard a journal cannot hold: --shard's own rules, so a
// hand-edited index of 5 of 3 (or -1) is never merged as one of the 3.
func (s *ShardInfo) check() error {
	if s == nil {
		return nil
	}
	switch {
	case s.Count < 1 || s.Count > MaxShards:
		return fmt.Errorf("shard.count %d: want 1 to %d", s.Count, MaxShards)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("shard.index %d: want 0 to %d (shard.count is %d)", s.Index, s.Count-1, s.Count)
	}
	return nil
}

// Label names the shard in reports: "1/2 host-a card 3".
func (s *ShardInfo) Label() string {
	l := fmt.Sprintf("%d/%d %s", s.Index, s.Count, s.Host)
	if s.Card != "" {
		l += " card " + s.Card
	}
	return l
}

// ParseShard reads --shard I/N: shard I (0-based, as Slurm's
// SLURM_ARRAY_TASK_ID and Kubernetes' JOB_COMPLETION_INDEX count) of N.
func ParseShard(spec string) (index, count int, err error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(spec), "/")
	if !ok {
		return 0, 0, fmt.Errorf("--shard %q: want I/N, shard I (from 0) of N, such as 0/8", spec)
	}
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, fmt.Errorf("--shard %q: want I/N with whole numbers, such as 0/8", spec)
	case n < 1 || n > MaxShards:
		return 0, 0, fmt.Errorf("--shard %q: want 1 to %d shards", spec, MaxShards)
	case i < 0 || i >= n:
		return 0, 0, fmt.Errorf("--shard %q: want I from 0 to %d", spec, n-1)
	}
	return i, n, nil
}

// CheckCampaignID refuses a --campaign id that cannot name a directory:
// 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-'.
func CheckCampaignID(id string) error {
	if id == "" || len(id) > 64 {
		return fmt.Errorf("--campaign %q: want 1 to 64 characters", id)
	}
	for i, c := range id {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || (i > 0 && (c == '.' || c == '-'))
		if !ok {
			return fmt.Errorf("--campaign %q: want letters, digits, '.', '_' or '-' (not first), such as $SLURM_ARRAY_JOB_ID", id)
		}
	}
	return nil
}

// CampaignSeed is the campaign seed of a campaign id when --seed is not
// given: FNV-1a of the id, so that every shard given the same --campaign
// draws from the same campaign seed without a shared file.
func CampaignSeed(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// ShardSeed is the schedule seed of shard index of a campaign: a PCG
// draw from the campaign seed on a stream of the shard's own.
func ShardSeed(campaignSeed uint64, index int) uint64 {
	return rand.New(rand.NewPCG(campaignSeed, shardStream+uint64(index))).Uint64()
}

// NewShard returns shard index of count of campaign id, run here: its host
// from $HBGBENCH_HOST or os.Hostname, its card from
// $ASCEND_RT_VISIBLE_DEVICES.
func NewShard(id string, index, count int, seed uint64, seedSet bool) (*ShardInfo, error) {
	if err := CheckCampaignID(id); err != nil {
		return nil, err
	}
	if !seedSet {
		seed = CampaignSeed(id)
	}
	host := os.Getenv(HostEnv)
	if host == "" {
		host, _ = os.Hostname()
	}
	if host == "" {
		host = "unknown"
	}
	return &ShardInfo{Campaign: id, Index: index, Count: count, CampaignSeed: seed, Host: host, Card: os.Getenv(CardEnv)}, nil
}

// fileWord keeps the letters, digits, '.', '_' and '-' of s, the rest
// becoming '_', for a file name.
func fileWord(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return strings.TrimLeft(string(b), ".")
}

// ShardJournal is the default journal of a shard in a campaign home:
// <home>/<campaign>/shard-<I>of<N>-<host>[-card<C>].jsonl, one directory
// per campaign, which `hbgbench report <home>/<campaign>` merges.
func ShardJournal(home string, s *ShardInfo) string {
	name := fmt.Sprintf("shard-%dof%d-%s", s.Index, s.Count, fileWord(s.Host))
	if s.Card != "" {
		name += "-card" + fileWord(s.Card)
	}
	return filepath.Join(home, s.Campaign, name+".jsonl")
}

// checkShard lists how a resumed journal's shard differs from the one
// given: another campaign, shard or shard count.
func CheckShard(journal *ShardInfo, given *ShardInfo) []string {
	switch {
	case given == nil:
		return nil // the journal says which shard it is
	case journal == nil:
		return []string{"--shard: the journal is not a shard's"}
	}
	var out []string
	if journal.Campaign != given.Campaign {
		out = append(out, fmt.Sprintf("--campaign: journal %s, given %s", journal.Campaign, given.Campaign))
	}
	if journal.Index != given.Index || journal.Count != given.Count {
		out = append(out, fmt.Sprintf("--shard: journal %d/%d, given %d/%d", journal.Index, journal.Count, given.Index, given.Count))
	}
	if journal.CampaignSeed != given.CampaignSeed {
		out = append(out, fmt.Sprintf("campaign seed: journal %d, given %d", journal.CampaignSeed, given.CampaignSeed))
	}
	return out
}

// ShardCacheDir is the subdirectory of the worktree cache a shard's git
// worktrees go to: <campaign>-<I>of<N>.
func ShardCacheDir(s *ShardInfo) string {
	return fmt.Sprintf("%s-%dof%d", s.Campaign, s.Index, s.Count)
}

// ShardOf returns the shard that --shard spec and --campaign id name, or
// nil when neither is given: both or neither, a valid I/N, and no
// --until-decided (untilDecided), since a shard sees only its own rounds
// (docs/ab-operations.md "Shards: one campaign over many cards and
// hosts"). seed and seedSet are --seed's.
func ShardOf(spec, id string, untilDecided bool, seed uint64, seedSet bool) (*ShardInfo, error) {
	switch {
	case spec == "" && id == "":
		return nil, nil
	case spec == "":
		return nil, fmt.Errorf("--campaign %s: give --shard I/N as well (a campaign id names a campaign split into shards)", id)
	case id == "":
		return nil, fmt.Errorf("--shard %s: give --campaign ID as well, the same for every shard (e.g. $SLURM_ARRAY_JOB_ID)", spec)
	}
	i, n, err := ParseShard(spec)
	if err != nil {
		return nil, err
	}
	if untilDecided {
		return nil, fmt.Errorf("--until-decided with --shard: a shard sees only its own rounds, so it would stop on 1/%d of the evidence; run fixed --rounds per shard, merge, and extend the shards if the merged verdict is inconclusive", n)
	}
	return NewShard(id, i, n, seed, seedSet)
}
