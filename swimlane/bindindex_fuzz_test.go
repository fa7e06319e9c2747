package swimlane

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
)

// chooseBindScan is the scan bindIndex replaced: every bind looked at, in
// log order. The index must choose what it chose.
func chooseBindScan(binds []*trace.Span, bp *trace.BindPhase, passStart int64) *trace.Span {
	var first, own *trace.Span
	for _, b := range binds {
		if b.Ts > bp.StartNs || bp.End() > b.End() {
			continue
		}
		if first == nil {
			first = b
		}
		if b.Thread != bp.Thread {
			continue
		}
		if own == nil || absDiff(b.Ts, passStart) < absDiff(own.Ts, passStart) {
			own = b
		}
	}
	if own != nil {
		return own
	}
	return first
}

// bindsFrom decodes data into binds and lines: 17 bytes a record (a
// thread byte, then start and duration as int64, made small unless the
// byte says to keep them whole, so that containment is common).
func bindsFrom(data []byte) (binds []*trace.Span, lines []trace.BindPhase) {
	for len(data) >= 17 {
		tb := data[0]
		ts := int64(binary.LittleEndian.Uint64(data[1:]))
		dur := int64(binary.LittleEndian.Uint64(data[9:]))
		data = data[17:]
		if tb&0x80 == 0 {
			ts, dur = ts%1000, dur%300
		}
		thread := string(rune('a' + tb%3))
		if tb&0x40 == 0 {
			binds = append(binds, &trace.Span{Name: "chip.run.bind", Ts: ts, Dur: dur, Thread: thread})
		} else {
			lines = append(lines, trace.BindPhase{StartNs: ts, DurNs: dur, Thread: thread})
		}
	}
	return binds, lines
}

func checkBindIndex(t *testing.T, binds []*trace.Span, lines []trace.BindPhase) {
	t.Helper()
	x := newBindIndex(binds)
	for i := range lines {
		for _, passStart := range []int64{0, lines[i].StartNs, lines[i].StartNs - 7, math.MaxInt64} {
			want := chooseBindScan(binds, &lines[i], passStart)
			if got := x.choose(&lines[i], passStart); got != want {
				t.Fatalf("line %+v, pass start %d: index chose %+v, the scan %+v", lines[i], passStart, got, want)
			}
		}
	}
}

// TestBindIndexMatchesScan: on random binds (overlapping, nested, equal,
// of three threads) and lines, the index picks the bind the scan of every
// bind picked.
func TestBindIndexMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		data := make([]byte, 17*(1+r.IntN(60)))
		for i := range data {
			data[i] = byte(r.UintN(256))
		}
		binds, lines := bindsFrom(data)
		checkBindIndex(t, binds, lines)
	}
}

func FuzzBindIndexMatchesScan(f *testing.F) {
	rec := func(tb byte, ts, dur int64) []byte {
		b := []byte{tb}
		b = binary.LittleEndian.AppendUint64(b, uint64(ts))
		return binary.LittleEndian.AppendUint64(b, uint64(dur))
	}
	var seed []byte
	seed = append(seed, rec(0, 10, 100)...)
	seed = append(seed, rec(1, 5, 200)...)
	seed = append(seed, rec(0x40, 20, 10)...)
	seed = append(seed, rec(0x41, 20, 10)...)
	f.Add(seed)
	f.Add(append(rec(0x80, math.MaxInt64-5, 100), rec(0xc0, math.MaxInt64-2, 1)...))
	f.Add(append(rec(0x80, 50, -40), rec(0xc0, 20, 5)...))
	f.Add(append(rec(0x80, math.MinInt64, math.MaxInt64), rec(0xc0, math.MinInt64+3, 1)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		binds, lines := bindsFrom(data)
		checkBindIndex(t, binds, lines)
	})
}
