package phases

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/trace"
)

// overlapRun describes one phased run, as the reference tests'
// _run_records fixture: bind, runner_run and claim_release at depth 1,
// then the chip.run root from prepare start to release+10.
type overlapRun struct {
	pid, inv                     int64
	epoch, dispatch, runID, slot int64
	prepTs, prepDur              int64
	devTs, devDur                int64
	release                      int64
	prefix                       string // "chip.run" unless set
	skip                         map[string]bool
}

func (r overlapRun) spans() []trace.Span {
	prefix := r.prefix
	if prefix == "" {
		prefix = "chip.run"
	}
	pid := r.pid
	if pid == 0 {
		pid = 7
	}
	mk := func(name string, depth, ts, dur int64, attrs string) trace.Span {
		return trace.Span{Pid: pid, Tid: pid, Inv: uint64(r.inv), Hid: "abc", Depth: depth, Name: name, Ts: ts, Dur: dur, Attrs: attrs}
	}
	var out []trace.Span
	if !r.skip["bind"] {
		out = append(out, mk(prefix+".bind", 1, r.prepTs, r.prepDur, ""))
	}
	if !r.skip["runner_run"] {
		out = append(out, mk(prefix+".runner_run", 1, r.devTs, r.devDur, ""))
	}
	if !r.skip["claim_release"] {
		out = append(out, mk(prefix+".claim_release", 1, r.release, 10, ""))
	}
	attrs := fmt.Sprintf("run_id=%d dispatch_id=%d slot_id=%d generation=1 run_epoch=%d", r.runID, r.dispatch, r.slot, r.epoch)
	out = append(out, mk(prefix, 0, r.prepTs, r.release+10-r.prepTs, attrs))
	return out
}

func overlapInvs(spans []trace.Span) []*trace.Invocation {
	return trace.GroupInvocations(trace.InvocationSpans(spans))
}

func overlapSpans(runs ...overlapRun) []trace.Span {
	var out []trace.Span
	for _, r := range runs {
		out = append(out, r.spans()...)
	}
	return out
}

var (
	overlapFirst  = overlapRun{inv: 1, epoch: 1, prepTs: 50, prepDur: 20, devTs: 100, devDur: 100, release: 200}
	overlapSecond = overlapRun{inv: 2, epoch: 2, prepTs: 150, prepDur: 30, devTs: 240, devDur: 100, release: 340}
)

func TestVerifyOverlap(t *testing.T) {
	late := overlapSecond
	late.prepTs, late.prepDur = 190, 40
	after := overlapSecond
	after.prepTs, after.prepDur = 210, 20
	releasedLate := overlapFirst
	releasedLate.release = 250
	d10 := overlapFirst
	d10.dispatch, d10.runID = 10, 5
	d11 := overlapSecond
	d11.dispatch, d11.runID = 11, 6
	legacy1, legacy2 := overlapFirst, overlapSecond
	legacy1.prefix, legacy2.prefix = "simpler_run", "simpler_run"
	backwards := overlapSecond
	backwards.epoch = 1
	backwards.runID = 1
	noBind := overlapSecond
	noBind.skip = map[string]bool{"bind": true, "claim_release": true}
	zeroSeq := overlapSecond
	zeroSeq.epoch = 0
	dup := overlapSecond
	dup.epoch = 1
	otherPid1, otherPid2 := overlapFirst, overlapSecond
	otherPid1.pid, otherPid2.pid = 8, 9

	tests := []struct {
		name          string
		spans         []trace.Span
		requireHidden bool
		wantSeqs      [][2]string // per check: predecessor, successor
		wantErr       string
	}{
		{name: "two runs overlap (item 22)", spans: overlapSpans(overlapFirst, overlapSecond), wantSeqs: [][2]string{{"1", "2"}}},
		{name: "prepare outlasts device (item 23)", spans: overlapSpans(overlapFirst, late), wantSeqs: [][2]string{{"1", "2"}}},
		{
			name: "prepare not hidden (item 23)", spans: overlapSpans(overlapFirst, late), requireHidden: true,
			wantErr: "preparation was not fully hidden: sequence=2 prepare_end=230 predecessor_device_end=200",
		},
		{
			name: "did not overlap (item 24)", spans: overlapSpans(overlapFirst, after),
			wantErr: "preparation did not overlap: sequence=2 prepare=[210,230] predecessor_device=[100,200]",
		},
		{
			name: "reordered before release (item 25)", spans: overlapSpans(releasedLate, overlapSecond),
			wantErr: "device execution reordered before the claim release: sequence=2 device_start=240 predecessor_release=250",
		},
		{name: "dispatch ids (item 27)", spans: overlapSpans(d10, d11), wantSeqs: [][2]string{{"10", "11"}}},
		{
			name: "extra root without identity (item 28)",
			spans: append(overlapSpans(overlapFirst, overlapSecond),
				trace.Span{Pid: 7, Tid: 7, Inv: 3, Hid: "abc", Name: "chip.run", Ts: 400, Dur: 10}),
			wantSeqs: [][2]string{{"1", "2"}},
		},
		{
			name: "single run (item 29)", spans: overlapSpans(overlapFirst),
			wantErr: "need at least two complete native runs on one process lane",
		},
		{
			name: "runs on different pids make no pair", spans: overlapSpans(otherPid1, otherPid2),
			wantErr: "need at least two complete native runs on one process lane",
		},
		{name: "legacy simpler_run names", spans: overlapSpans(legacy1, legacy2), wantSeqs: [][2]string{{"1", "2"}}},
		{
			name: "launch order", spans: overlapSpans(overlapFirst, backwards),
			wantErr: "launch order is not monotonic: predecessor=1 successor=1",
		},
		{
			name: "missing spans", spans: overlapSpans(overlapFirst, noBind),
			wantErr: "sequence=2 is missing span(s): chip.run.bind, chip.run.claim_release",
		},
		{
			name: "sequence zero is skipped", spans: overlapSpans(overlapFirst, zeroSeq),
			wantErr: "need at least two complete native runs on one process lane",
		},
		{
			name: "duplicate identity", spans: overlapSpans(overlapFirst, dup),
			wantErr: "duplicate identity for pid=7 sequence=1",
		},
		{
			name:    "missing identity fields",
			spans:   []trace.Span{{Pid: 7, Inv: 4, Name: "chip.run", Attrs: "run_id=0 slot_id=1"}},
			wantErr: "chip.run (pid=7 inv=4) is missing identity field(s): dispatch_id, run_epoch, generation",
		},
		{
			name: "non-integer identity",
			spans: []trace.Span{{Pid: 7, Inv: 4, Name: "chip.run",
				Attrs: "run_id=0 dispatch_id=x slot_id=1 generation=1 run_epoch=1"}},
			wantErr: "chip.run has a non-integer identity",
		},
		{
			name: "a fractional identity is not an integer",
			spans: []trace.Span{{Pid: 7, Inv: 4, Name: "chip.run",
				Attrs: "run_id=0 dispatch_id=1.5 slot_id=1 generation=1 run_epoch=1"}},
			wantErr: "chip.run has a non-integer identity",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checks, err := VerifyOverlap(overlapInvs(tc.spans), OverlapOptions{RequireHidden: tc.requireHidden})
			if tc.wantErr != "" {
				var oe *OverlapError
				require.ErrorAs(t, err, &oe)
				assert.Equal(t, tc.wantErr, oe.Msg)
				assert.Equal(t, "native overlap assertion failed: "+tc.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			var got [][2]string
			for _, c := range checks {
				got = append(got, [2]string{c.Predecessor.Sequence.String(), c.Successor.Sequence.String()})
			}
			assert.Equal(t, tc.wantSeqs, got)
		})
	}
}

func TestVerifyOverlapIdentity(t *testing.T) {
	// Item 26: dispatch_id 0 takes the sequence from run_epoch; item 30:
	// claim_release is a depth-1 child of a chip.run root of 160 ns.
	invs := overlapInvs(overlapSpans(overlapFirst, overlapSecond))
	checks, err := VerifyOverlap(invs, OverlapOptions{})
	require.NoError(t, err)
	require.Len(t, checks, 1)
	p := checks[0].Predecessor
	assert.Equal(t, "0", p.DispatchID.String())
	assert.Equal(t, "1", p.RunEpoch.String())
	assert.Equal(t, "1", p.Sequence.String())
	assert.Equal(t, "chip.run", p.Root.Name)
	assert.EqualValues(t, 160, p.Root.Dur)
	assert.EqualValues(t, 1, p.ClaimRelease.Depth)
	assert.Equal(t, "chip.run.claim_release", invs[0].ByName()["chip.run.claim_release"].Name)
}

func TestVerifyOverlapSortsByDeviceStart(t *testing.T) {
	// The run with the lower inv launches second: runs are paired by
	// runner_run start, not by inv; identity values beyond 64 bits keep
	// their order.
	early, late := overlapFirst, overlapSecond
	early.inv, late.inv = 2, 1
	spans := overlapSpans(late, early)
	for i := range spans {
		if spans[i].Name != "chip.run" {
			continue
		}
		seq := "36893488147419103232"
		if spans[i].Inv == 1 {
			seq = "36893488147419103233"
		}
		spans[i].Attrs = "run_id=0 dispatch_id=" + seq + " slot_id=0 generation=1 run_epoch=1"
	}
	checks, err := VerifyOverlap(overlapInvs(spans), OverlapOptions{})
	require.NoError(t, err)
	require.Len(t, checks, 1)
	assert.EqualValues(t, 2, checks[0].Predecessor.Inv)
	assert.Equal(t, "36893488147419103232", checks[0].Predecessor.Sequence.String())
	assert.Equal(t, "36893488147419103233", checks[0].Successor.Sequence.String())
}

// TestOverlapIdentityIsPythonInt pins a hand-built pair of runs whose
// identities are spelled as int() reads them: dispatch_id=%31 is 1 and
// %32 is 2 (in order), run_epoch=003 and +7, slot 1_0: one adjacent pair.
func TestOverlapIdentityIsPythonInt(t *testing.T) {
	mk := func(inv int64, dispatch, epoch string, bind, dev, release int64) []trace.Span {
		s := func(name string, depth, ts, dur int64, attrs string) trace.Span {
			return trace.Span{Pid: 7, Tid: 7, Inv: uint64(inv), Hid: "abc", Depth: depth, Name: name, Ts: ts, Dur: dur, Attrs: attrs}
		}
		return []trace.Span{
			s("chip.run.bind", 1, bind, 20, ""),
			s("chip.run.runner_run", 1, dev, 100, ""),
			s("chip.run.claim_release", 1, release, 10, ""),
			s("chip.run", 0, bind, release+10-bind, "run_id=0 dispatch_id="+dispatch+" slot_id=1_0 generation=+1 run_epoch="+epoch),
		}
	}
	spans := append(mk(1, "%31", "003", 0, 100, 200), mk(2, "%32", "+7", 150, 230, 330)...)
	checks, err := VerifyOverlap(overlapInvs(spans), OverlapOptions{})
	require.NoError(t, err)
	require.Len(t, checks, 1)
}
