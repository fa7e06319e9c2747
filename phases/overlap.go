package phases

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// The overlap proof of strace_timing --assert-native-overlap (`hbgtrace
// overlap`, README.md "overlap"): run N+1's preparation (its
// chip.run.bind) must overlap run N's device work (its chip.run.runner_run),
// and launches must stay in FIFO order on each process lane.

// overlapIdentityKeys are the identity attributes of a phased run's root,
// in the order the reference names them when some are missing.
var overlapIdentityKeys = []string{"run_id", "dispatch_id", "run_epoch", "slot_id", "generation"}

// The spans the proof looks up in every phased run, by canonical name. The
// legacy names (simpler_run.*, before simpler's rename to chip.run*) are
// accepted too; messages use the canonical names.
const (
	overlapBind         = "chip.run.bind"
	overlapRunnerRun    = "chip.run.runner_run"
	overlapClaimRelease = "chip.run.claim_release"
)

// An OverlapError is a failed overlap assertion. Msg is the reference's
// message, without the "native overlap assertion failed: " prefix.
type OverlapError struct {
	Msg string
}

func (e *OverlapError) Error() string { return "native overlap assertion failed: " + e.Msg }

func overlapFail(format string, args ...any) error {
	return &OverlapError{Msg: fmt.Sprintf(format, args...)}
}

// A NativeRun is one phased run: an invocation whose root carries the
// identity attributes, with the three spans the proof needs.
type NativeRun struct {
	Pid  int64
	Inv  uint64
	Root *trace.Span
	// Identity fields of the root; integers of any size, as the reference.
	RunID, DispatchID, RunEpoch, SlotID, Generation *big.Int
	// Sequence is DispatchID when it is non-zero, else RunEpoch.
	Sequence                      *big.Int
	Bind, RunnerRun, ClaimRelease *trace.Span
}

// An OverlapCheck is one adjacent pair of runs on a process lane that
// passed every check.
type OverlapCheck struct {
	Pid                    int64
	Predecessor, Successor *NativeRun
}

// OverlapOptions tunes VerifyOverlap.
type OverlapOptions struct {
	// RequireHidden also demands that each successor's preparation ends
	// before its predecessor's device work does.
	RequireHidden bool
}

// VerifyOverlap runs the native-overlap proof over invocations (grouped
// from the invocation-keyed spans, as trace.GroupInvocations returns them)
// and returns the adjacent pairs it checked. The first failure aborts with
// an *OverlapError carrying the reference's message.
func VerifyOverlap(invs []*trace.Invocation, opts OverlapOptions) ([]OverlapCheck, error) {
	runs, err := collectNativeRuns(invs)
	if err != nil {
		return nil, err
	}
	// Group by pid in order of first appearance (ascending pid, since invs
	// are sorted by (pid, inv)).
	var pids []int64
	byPid := make(map[int64][]*NativeRun)
	for _, r := range runs {
		if _, ok := byPid[r.Pid]; !ok {
			pids = append(pids, r.Pid)
		}
		byPid[r.Pid] = append(byPid[r.Pid], r)
	}
	var checks []OverlapCheck
	for _, pid := range pids {
		lane := byPid[pid]
		sort.SliceStable(lane, func(i, j int) bool { return lane[i].RunnerRun.Ts < lane[j].RunnerRun.Ts })
		for i := 1; i < len(lane); i++ {
			p, s := lane[i-1], lane[i]
			if err := checkOverlapPair(p, s, opts); err != nil {
				return nil, err
			}
			checks = append(checks, OverlapCheck{Pid: pid, Predecessor: p, Successor: s})
		}
	}
	if len(checks) == 0 {
		return nil, overlapFail("need at least two complete native runs on one process lane")
	}
	return checks, nil
}

// checkOverlapPair applies the pair checks in the reference's order.
func checkOverlapPair(p, s *NativeRun, opts OverlapOptions) error {
	if s.Sequence.Cmp(p.Sequence) <= 0 {
		return overlapFail("launch order is not monotonic: predecessor=%s successor=%s", p.Sequence, s.Sequence)
	}
	dev, prep := p.RunnerRun, s.Bind
	if prep.Ts >= dev.End() || prep.End() <= dev.Ts {
		return overlapFail("preparation did not overlap: sequence=%s prepare=[%d,%d] predecessor_device=[%d,%d]",
			s.Sequence, prep.Ts, prep.End(), dev.Ts, dev.End())
	}
	if opts.RequireHidden && prep.End() > dev.End() {
		return overlapFail("preparation was not fully hidden: sequence=%s prepare_end=%d predecessor_device_end=%d",
			s.Sequence, prep.End(), dev.End())
	}
	if s.RunnerRun.Ts < p.ClaimRelease.Ts {
		return overlapFail("device execution reordered before the claim release: sequence=%s device_start=%d predecessor_release=%d",
			s.Sequence, s.RunnerRun.Ts, p.ClaimRelease.Ts)
	}
	return nil
}

// collectNativeRuns applies steps 1–3 of the proof as the reference does:
// first identity, sequence and duplicates for every invocation in order,
// then the required spans of every run in order. So a missing identity
// field of a later run is reported before a missing span of an earlier one.
func collectNativeRuns(invs []*trace.Invocation) ([]*NativeRun, error) {
	type identity struct {
		pid                             int64
		run, dispatch, epoch, slot, gen string
	}
	seen := make(map[identity]bool)
	var runs []*NativeRun
	var runInvs []*trace.Invocation
	for _, iv := range invs {
		root := iv.Root()
		if root == nil {
			continue
		}
		vals, err := overlapIdentity(iv, root)
		if err != nil {
			return nil, err
		}
		if vals == nil {
			continue // not a phased run
		}
		r := &NativeRun{
			Pid: iv.Pid, Inv: iv.Inv, Root: root,
			RunID: vals[0], DispatchID: vals[1], RunEpoch: vals[2], SlotID: vals[3], Generation: vals[4],
		}
		r.Sequence = r.DispatchID
		if r.DispatchID.Sign() == 0 {
			r.Sequence = r.RunEpoch
		}
		if r.Sequence.Sign() == 0 {
			continue
		}
		id := identity{iv.Pid, r.RunID.String(), r.DispatchID.String(), r.RunEpoch.String(), r.SlotID.String(), r.Generation.String()}
		if seen[id] {
			return nil, overlapFail("duplicate identity for pid=%d sequence=%s", iv.Pid, r.Sequence)
		}
		seen[id] = true
		runs = append(runs, r)
		runInvs = append(runInvs, iv)
	}
	for i, r := range runs {
		iv := runInvs[i]
		var missing []string
		for _, name := range []string{overlapBind, overlapRunnerRun, overlapClaimRelease} {
			sp := overlapLookup(iv, name)
			if sp == nil {
				missing = append(missing, name)
				continue
			}
			switch name {
			case overlapBind:
				r.Bind = sp
			case overlapRunnerRun:
				r.RunnerRun = sp
			case overlapClaimRelease:
				r.ClaimRelease = sp
			}
		}
		if len(missing) > 0 {
			return nil, overlapFail("sequence=%s is missing span(s): %s", r.Sequence, strings.Join(missing, ", "))
		}
	}
	return runs, nil
}

// overlapIdentity parses the identity fields of a root: nil, nil when none
// is present (not a phased run), the five values in overlapIdentityKeys
// order when all are integers.
func overlapIdentity(iv *trace.Invocation, root *trace.Span) ([]*big.Int, error) {
	attrs := trace.ParseAttrs(root.Attrs)
	var missing []string
	for _, k := range overlapIdentityKeys {
		if !attrs.Has(k) {
			missing = append(missing, k)
		}
	}
	if len(missing) == len(overlapIdentityKeys) {
		return nil, nil
	}
	if len(missing) > 0 {
		return nil, overlapFail("%s (pid=%d inv=%d) is missing identity field(s): %s",
			root.Name, iv.Pid, iv.Inv, strings.Join(missing, ", "))
	}
	vals := make([]*big.Int, len(overlapIdentityKeys))
	for i, k := range overlapIdentityKeys {
		a, _ := attrs.Get(k)
		n, ok := a.Int()
		if !ok {
			return nil, overlapFail("%s has a non-integer identity", root.Name)
		}
		vals[i] = n
	}
	return vals, nil
}

// overlapLookup returns the earliest span of iv named name, or, when there is
// none, the earliest named by its legacy simpler_run* form.
func overlapLookup(iv *trace.Invocation, name string) *trace.Span {
	if sp := iv.Lookup(name); sp != nil {
		return sp
	}
	if rest, ok := strings.CutPrefix(name, "chip.run"); ok {
		return iv.Lookup("simpler_run" + rest)
	}
	return nil
}
