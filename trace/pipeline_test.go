package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// yielded is one yielded a Reader yielded, by value.
type yielded struct {
	Kind   Kind
	Span   Span
	Anchor Anchor
	Bind   BindPhase
	Orch   HostOrchPhase
	Stamp  Stamp
	Drops  Drops
	Torn   Torn
	Bad    Malformed
}

// readAll reads srcs to the end with opts and a chunk size (0: default),
// returning the records, Heads, Parsed and Err.
func readAll(t *testing.T, srcs []Source, opts ReadOptions, chunk int) ([]yielded, int, int, error) {
	t.Helper()
	cfg := newReadConfig(opts)
	cfg.chunk = chunk
	r := newReader(srcs, cfg, opts.Workers)
	defer r.Close()
	var out []yielded
	for r.Scan() {
		rc := yielded{Kind: r.Kind()}
		switch r.Kind() {
		case KindSpan:
			rc.Span = *r.Span()
		case KindAnchor:
			rc.Anchor = *r.Anchor()
		case KindBindPhase:
			rc.Bind = *r.BindPhase()
		case KindHostOrch:
			rc.Orch = *r.HostOrch()
		case KindStamp:
			rc.Stamp = *r.Stamp()
		case KindDrops:
			rc.Drops = *r.Drops()
		case KindTorn:
			rc.Torn = *r.Torn()
		case KindMalformed:
			rc.Bad = *r.Malformed()
		default:
			t.Fatalf("Scan true with kind %v", r.Kind())
		}
		out = append(out, rc)
	}
	return out, r.Heads(), r.Parsed(), r.Err()
}

// mixedLog is a log of every kind of yielded, CRLF and LF lines, torn
// records, records sharing lines, noise, and no final newline.
func mixedLog() string {
	var b strings.Builder
	b.WriteString("[stamp] abc env X=1 python run.py\n")
	b.WriteString(anchorLine(41, 1000, 1700000000000000000) + "\r\n")
	for i := 0; i < 300; i++ {
		b.WriteString(rec(41, uint64(i), "chip.run", fmt.Sprintf("rank=0 i=%d", i), 0, int64(100+i), 20))
		b.WriteString(rec(42, uint64(i), "chip.run.runner_run.device_wall", "clk=dev", 2, 5, 10))
		if i%3 == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[mono_ns=%d][T0xab][TIMING] host_phase_trace_end: [f.cpp:1] bind phase=args start_ns=%d dur_ns=2 x=%d\n", i, i, i)
		fmt.Fprintf(&b, "[mono_ns=%d][T0xab][TIMING] host_phase_trace_end: [f.cpp:2] host-orch phase=record_node total_ns=5 count=%d\n", i, i)
		b.WriteString("[mono_ns=5][T0x9][INFO] noise: [dev.cpp:3] launching kernel on stream 0x1\n")
		if i%50 == 7 {
			b.WriteString("[STRACE] v=1 pid=1 tid=1 inv=1 hid=0 depth=0 name=cut\n")
			b.WriteString("[HOSTLOG_DROPS] v=1 pid=7 new=1 total=1 queue_full=1 claim_exhausted=0 output_failed=0 not_admitted=0\n")
			b.WriteString("[stamp] second\n")
		}
	}
	b.WriteString(bare(9, 9, 9, "last", "k=v", 1, 2))
	b.WriteString("[STRACE] v=1 pid=1 tid=1 inv=1 hid=0 depth=0 name=cut2\r")
	return b.String()
}

func TestParallelReaderMatchesSequential(t *testing.T) {
	text := mixedLog()
	dir := t.TempDir()
	path := filepath.Join(dir, "host.1.log")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	gz := filepath.Join(dir, "host.2.log")
	require.NoError(t, os.WriteFile(gz, gzipped(t, []byte(text)), 0o644))
	srcs := func() []Source {
		return []Source{
			ReaderSource("a.log", strings.NewReader(text)),
			FileSource(path),
			ReaderSource("empty.log", strings.NewReader("")),
			FileSource(gz),
			ReaderSource("b.log", strings.NewReader("x\n"+bare(2, 2, 1, "b", "", 1, 2))),
		}
	}
	want, wantHeads, wantParsed, err := readAll(t, srcs(), ReadOptions{}, 0)
	require.NoError(t, err)
	require.Greater(t, len(want), 2000)
	tests := []struct {
		name    string
		workers int
		chunk   int
	}{
		{"sequential, tiny chunks", 1, 64},
		{"sequential, small chunks", 0, 4096},
		{"two workers", 2, 0},
		{"two workers, tiny chunks", 2, 64},
		{"three workers, odd chunks", 3, 1000},
		{"eight workers, small chunks", 8, 333},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, heads, parsed, err := readAll(t, srcs(), ReadOptions{Workers: tc.workers}, tc.chunk)
			require.NoError(t, err)
			assert.Equal(t, wantHeads, heads)
			assert.Equal(t, wantParsed, parsed)
			require.Equal(t, len(want), len(got))
			for i := range want {
				require.Equal(t, want[i], got[i], "yielded %d", i)
			}
		})
	}
}

func TestReadOptionsKinds(t *testing.T) {
	text := mixedLog()
	all, heads, parsed, err := readAll(t, []Source{ReaderSource("a.log", strings.NewReader(text))}, ReadOptions{}, 0)
	require.NoError(t, err)
	only := func(keep func(yielded) bool) []yielded {
		var out []yielded
		for _, r := range all {
			if keep(r) {
				out = append(out, r)
			}
		}
		return out
	}
	tests := []struct {
		name      string
		opts      ReadOptions
		want      []yielded
		wantHeads int
	}{
		{
			name:      "bind phases and stamps",
			opts:      ReadOptions{Kinds: Kinds(KindBindPhase, KindStamp)},
			want:      only(func(r yielded) bool { return r.Kind == KindBindPhase || r.Kind == KindStamp }),
			wantHeads: 0,
		},
		{
			name:      "torn only still counts heads",
			opts:      ReadOptions{Kinds: Kinds(KindTorn), Workers: 2},
			want:      only(func(r yielded) bool { return r.Kind == KindTorn }),
			wantHeads: heads,
		},
		{
			name: "device spans only",
			opts: ReadOptions{Kinds: Kinds(KindSpan, KindAnchor), KeepSpan: func(name string) bool { return strings.HasSuffix(name, "device_wall") }},
			want: only(func(r yielded) bool {
				return r.Kind == KindAnchor || r.Kind == KindSpan && strings.HasSuffix(r.Span.Name, "device_wall")
			}),
			wantHeads: heads,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, h, p, err := readAll(t, []Source{ReaderSource("a.log", strings.NewReader(text))}, tc.opts, 0)
			require.NoError(t, err)
			require.NotEmpty(t, tc.want)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantHeads, h)
			if tc.wantHeads > 0 {
				assert.Equal(t, parsed, p)
			}
		})
	}
}

func TestReadLogOptionsKeepsWarningsRight(t *testing.T) {
	text := mixedLog()
	full, err := ReadLog([]Source{ReaderSource("a.log", strings.NewReader(text))})
	require.NoError(t, err)
	some, err := ReadLogOptions([]Source{ReaderSource("a.log", strings.NewReader(text))},
		ReadOptions{KeepSpan: func(name string) bool { return name == "last" }})
	require.NoError(t, err)
	require.Len(t, some.Spans, 1)
	assert.Equal(t, full.Heads, some.Heads)
	assert.Equal(t, full.Warnings(), some.Warnings())
	assert.Contains(t, strings.Join(full.Warnings(), "\n"), "records are incomplete")
}

// failAfter reads data, then fails with err.
type failAfter struct {
	data []byte
	err  error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestParallelReaderErrors(t *testing.T) {
	body := strings.Repeat(bare(1, 1, 1, "a", "", 1, 2), 500)
	missing := filepath.Join(t.TempDir(), "nope.log")
	tests := []struct {
		name    string
		srcs    func() []Source
		spans   int
		wantErr string
	}{
		{
			name: "read error after whole lines",
			srcs: func() []Source {
				return []Source{ReaderSource("f.log", &failAfter{data: []byte(body + "partial"), err: errors.New("disk on fire")})}
			},
			spans:   500,
			wantErr: "reading f.log: disk on fire",
		},
		{
			name: "missing second file",
			srcs: func() []Source {
				return []Source{ReaderSource("a.log", strings.NewReader(body)), FileSource(missing)}
			},
			spans:   500,
			wantErr: "reading " + missing + ": open " + missing,
		},
	}
	for _, tc := range tests {
		for _, workers := range []int{0, 2} {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				got, _, _, err := readAll(t, tc.srcs(), ReadOptions{Workers: workers}, 1000)
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Len(t, got, tc.spans)
			})
		}
	}
}

func TestParallelReaderLongLine(t *testing.T) {
	text := "ok\n" + bare(1, 1, 1, "a", "", 1, 2) + strings.Repeat("y", 3<<20) + "\n" + bare(1, 1, 2, "b", "", 1, 2)
	for _, workers := range []int{0, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			cfg := newReadConfig(ReadOptions{})
			cfg.maxLine = 1 << 20
			r := newReader([]Source{ReaderSource("big.log", strings.NewReader(text))}, cfg, workers)
			defer r.Close()
			n := 0
			for r.Scan() {
				n++
			}
			assert.Equal(t, 1, n)
			assert.EqualError(t, r.Err(), "reading big.log: line 3 is longer than 1 MiB")

			got, _, _, err := readAll(t, []Source{ReaderSource("big.log", strings.NewReader(text))}, ReadOptions{Workers: workers}, 4096)
			require.NoError(t, err)
			require.Len(t, got, 2)
			assert.Equal(t, 4, got[1].Span.Pos.Line)
		})
	}
}

// slowReader returns one byte per Read, to keep a producer busy.
type slowReader struct{ r io.Reader }

func (s slowReader) Read(p []byte) (int, error) { return s.r.Read(p[:1]) }

func TestParallelReaderClose(t *testing.T) {
	text := strings.Repeat(bare(1, 1, 1, "a", "", 1, 2), 20000)
	r := NewReaderOptions([]Source{ReaderSource("a.log", strings.NewReader(text))}, ReadOptions{Workers: 2})
	for i := 0; i < 10 && r.Scan(); i++ {
	}
	require.NoError(t, r.Close())
	assert.False(t, r.Scan())
	assert.Equal(t, KindNone, r.Kind())
	require.NoError(t, r.Close())

	r = NewReaderOptions([]Source{ReaderSource("slow.log", slowReader{bytes.NewReader([]byte(text))})}, ReadOptions{Workers: 2})
	require.NoError(t, r.Close())
	assert.False(t, r.Scan())
}

func TestReadOptionsFirstSpans(t *testing.T) {
	text := mixedLog()
	for i := 0; i < 400; i++ {
		// Invocations whose first span is a node span, then a chip one.
		text += "\n" + bare(50+i%3, 1, uint64(i), "node.submit", "", 1, 2) + bare(50+i%3, 1, uint64(i), "chip.run.validate", "", 1, 2) +
			bare(50+i%3, 1, uint64(i), "chip.run", "", 1, 2)
	}
	isChip := func(name string) bool { return strings.HasPrefix(name, "chip.") }
	all, _, _, err := readAll(t, []Source{ReaderSource("a.log", strings.NewReader(text))}, ReadOptions{Kinds: Kinds(KindSpan)}, 0)
	require.NoError(t, err)
	// The first chip span of each invocation, in log order.
	type key struct {
		pid int64
		inv uint64
	}
	firsts := map[key]Span{}
	for _, r := range all {
		k := key{r.Span.Pid, r.Span.Inv}
		if _, ok := firsts[k]; !ok && isChip(r.Span.Name) {
			firsts[k] = r.Span
		}
	}
	require.Greater(t, len(firsts), 400)
	for _, tc := range []struct {
		workers, chunk int
	}{{0, 0}, {0, 200}, {2, 64}, {3, 1000}} {
		t.Run(fmt.Sprintf("workers=%d,chunk=%d", tc.workers, tc.chunk), func(t *testing.T) {
			got, heads, _, err := readAll(t, []Source{ReaderSource("a.log", strings.NewReader(text))}, ReadOptions{
				Kinds:      Kinds(KindSpan),
				KeepSpan:   func(name string) bool { return name == "chip.run" },
				FirstSpans: isChip,
				Workers:    tc.workers,
			}, tc.chunk)
			require.NoError(t, err)
			assert.Equal(t, len(all), heads-countTorn(t, text))
			seen := map[key]bool{}
			n := 0
			for _, r := range got {
				k := key{r.Span.Pid, r.Span.Inv}
				if !seen[k] && isChip(r.Span.Name) {
					seen[k] = true
					require.Equal(t, firsts[k], r.Span, "the first chip span of %v", k)
				}
				if r.Span.Name != "chip.run" {
					n++
					assert.True(t, isChip(r.Span.Name), "only chip spans compete: %s", r.Span.Name)
				}
			}
			assert.Len(t, seen, len(firsts))
			assert.Less(t, n, len(all)/2, "most spans are rejected")
		})
	}
}

// countTorn counts the torn records of text.
func countTorn(t *testing.T, text string) int {
	got, _, _, err := readAll(t, []Source{ReaderSource("a.log", strings.NewReader(text))}, ReadOptions{Kinds: Kinds(KindTorn)}, 0)
	require.NoError(t, err)
	n := 0
	for _, r := range got {
		n += r.Torn.Count
	}
	return n
}

func TestReadOptionsSkipIfBindPhases(t *testing.T) {
	var noBinds strings.Builder
	for i := 0; i < 300; i++ {
		noBinds.WriteString(rec(41, uint64(i), "chip.run.bind.host_orch", "", 2, int64(i), 5) + "\n")
		noBinds.WriteString(anchorLine(41, 1000, 1700000000000000000) + "\n")
		noBinds.WriteString("[STRACE] v=1 pid=1 tid=1 inv=1 hid=0 depth=0 name=cut\n")
	}
	kinds := Kinds(KindBindPhase, KindStamp, KindSpan, KindTorn, KindAnchor, KindDrops)
	skip := Kinds(KindSpan, KindTorn, KindAnchor, KindDrops)
	for _, tc := range []struct {
		workers, chunk int
	}{{0, 0}, {0, 300}, {2, 64}, {3, 4096}} {
		t.Run(fmt.Sprintf("workers=%d,chunk=%d", tc.workers, tc.chunk), func(t *testing.T) {
			// Without bind phases, the log is read in full.
			want, wh, wp, err := readAll(t, []Source{ReaderSource("a.log", strings.NewReader(noBinds.String()))}, ReadOptions{Kinds: kinds}, tc.chunk)
			require.NoError(t, err)
			got, gh, gp, err := readAll(t, []Source{ReaderSource("a.log", strings.NewReader(noBinds.String()))},
				ReadOptions{Kinds: kinds, SkipIfBindPhases: skip, Workers: tc.workers}, tc.chunk)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			assert.Equal(t, wh, gh)
			assert.Equal(t, wp, gp)

			// With them, every bind phase and stamp is there, and no
			// chunk that has a bind phase yields a span.
			text := mixedLog()
			all, _, _, err := readAll(t, []Source{ReaderSource("m.log", strings.NewReader(text))}, ReadOptions{Kinds: kinds}, tc.chunk)
			require.NoError(t, err)
			got, _, _, err = readAll(t, []Source{ReaderSource("m.log", strings.NewReader(text))},
				ReadOptions{Kinds: kinds, SkipIfBindPhases: skip, Workers: tc.workers}, tc.chunk)
			require.NoError(t, err)
			var wantLines, gotLines []yielded
			spans := 0
			for _, r := range all {
				if r.Kind == KindBindPhase || r.Kind == KindStamp {
					wantLines = append(wantLines, r)
				}
			}
			for _, r := range got {
				if r.Kind == KindBindPhase || r.Kind == KindStamp {
					gotLines = append(gotLines, r)
				} else {
					spans++
				}
			}
			assert.Equal(t, wantLines, gotLines)
			if tc.chunk == 0 {
				assert.Zero(t, spans, "one chunk, with bind phases")
			}
		})
	}
}

// Files are read by chunks of the file itself: they give the records of
// the same text read from memory, over chunk sizes and workers.
func TestFileSourcesMatchReaderSources(t *testing.T) {
	text := strings.Repeat(mixedLog()+"\n", 12) + bare(3, 3, 3, "tail", "", 1, 2) // no final newline
	require.Greater(t, len(text), 1<<20)
	path := filepath.Join(t.TempDir(), "big.log")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	want, wh, wp, err := readAll(t, []Source{ReaderSource(path, strings.NewReader(text))}, ReadOptions{}, 0)
	require.NoError(t, err)
	for _, tc := range []struct {
		workers, chunk int
	}{{0, 0}, {0, 777}, {2, 0}, {2, 4096}, {3, 100}} {
		t.Run(fmt.Sprintf("workers=%d,chunk=%d", tc.workers, tc.chunk), func(t *testing.T) {
			cfg := newReadConfig(ReadOptions{})
			cfg.chunk = tc.chunk
			r := newReader([]Source{FileSource(path), FileSource(path)}, cfg, tc.workers)
			var got []yielded
			for r.Scan() {
				got = append(got, yielded{Kind: r.Kind()})
				switch r.Kind() {
				case KindSpan:
					got[len(got)-1].Span = *r.Span()
				case KindTorn:
					got[len(got)-1].Torn = *r.Torn()
				case KindBindPhase:
					got[len(got)-1].Bind = *r.BindPhase()
				}
			}
			require.NoError(t, r.Err())
			assert.Equal(t, 2*wh, r.Heads())
			assert.Equal(t, 2*wp, r.Parsed())
			require.Len(t, got, 2*len(want))
			for i, w := range want {
				if w.Kind != KindSpan && w.Kind != KindTorn && w.Kind != KindBindPhase {
					continue
				}
				switch w.Kind {
				case KindSpan:
					w.Span.Pos.File = path
				case KindTorn:
					w.Torn.Pos.File = path
				case KindBindPhase:
					w.Bind.Pos.File = path
				}
				for _, g := range []yielded{got[i], got[len(want)+i]} {
					require.Equal(t, w.Kind, g.Kind, "record %d", i)
					assert.Equal(t, w.Span, g.Span, "record %d", i)
					assert.Equal(t, w.Torn, g.Torn, "record %d", i)
					assert.Equal(t, w.Bind, g.Bind, "record %d", i)
				}
			}
			require.NoError(t, r.Close())
		})
	}
}

func TestFileLongLineAndClose(t *testing.T) {
	text := "ok\n" + bare(1, 1, 1, "a", "", 1, 2) + strings.Repeat("y", 3<<20) + "\n" + bare(1, 1, 2, "b", "", 1, 2)
	path := filepath.Join(t.TempDir(), "long.log")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	for _, workers := range []int{0, 2} {
		cfg := newReadConfig(ReadOptions{})
		cfg.maxLine = 1 << 20
		r := newReader([]Source{FileSource(path)}, cfg, workers)
		n := 0
		for r.Scan() {
			n++
		}
		assert.Equal(t, 1, n)
		assert.EqualError(t, r.Err(), "reading "+path+": line 3 is longer than 1 MiB")

		// Closed in the middle, a reader stops cleanly.
		big := strings.Repeat(bare(1, 1, 1, "a", "", 1, 2), 40000)
		bigPath := filepath.Join(t.TempDir(), "big.log")
		require.NoError(t, os.WriteFile(bigPath, []byte(big), 0o644))
		r = NewReaderOptions([]Source{FileSource(bigPath)}, ReadOptions{Workers: workers})
		for i := 0; i < 10 && r.Scan(); i++ {
		}
		require.NoError(t, r.Close())
		assert.False(t, r.Scan())
	}
}

// The phase search skips span heads and envelopes, where no match can
// start: it finds what a search of the whole line finds.
func TestPhaseSearchSkipsHeadsAndEnvelopes(t *testing.T) {
	lines := []string{
		rec(1, 1, "chip.run", "bind phase=args start_ns=1 dur_ns=2 x=1", 0, 5, 6),
		rec(1, 1, "xphase=args", "k=v", 0, 5, 6),
		"[mono_ns=1][T0xa][TIMING] bind phase=args start_ns=1 dur_ns=2: " + rec(1, 1, "a", "", 0, 5, 6),
		rec(1, 1, "a", "", 0, 5, 6) + rec(2, 2, "b", "host-orch phase=record_node total_ns=5", 0, 5, 6),
		rec(1, 1, "a", "bind", 0, 5, 6) + " phase=args start_ns=1 dur_ns=2",
		"[STRACE] v=1 pid=1 tid=1 inv=1 hid=0 depth=0 name=bind phase=args start_ns=1 dur_ns=2",
		"[STRACE] v=1 pid=1 tid=1 inv=1 hid=0 depth=0 name=cut bind phase=args start_ns=3 dur_ns=4",
		"[mono_ns=1][T0xa]bind phase=args start_ns=1 dur_ns=2",
		"[mono_ns=1][T0xa][mono_ns=2][T0xb] bind phase=args start_ns=1 dur_ns=2 [mono_ns=3][T0xc]",
		"xphase=[mono_ns=1][T0xa] bind phase=args start_ns=1 dur_ns=2",
	}
	for i, line := range lines {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			var want, wantOrch phaseLine
			hb, ho, _ := findPhases([]byte(line), nil, true, true, false, &want, &wantOrch)
			l := readText(t, line+"\n")
			require.Equal(t, hb, len(l.BindPhases) == 1, "bind phase found")
			require.Equal(t, ho, len(l.HostOrch) == 1, "host-orch found")
			if hb {
				assert.Equal(t, string(want.phase), l.BindPhases[0].Phase)
				assert.Equal(t, want.start, l.BindPhases[0].StartNs)
				assert.Equal(t, string(want.attrs), l.BindPhases[0].Attrs)
			}
			if ho {
				assert.Equal(t, string(wantOrch.attrs), l.HostOrch[0].Attrs)
			}
		})
	}
}

func TestFileTruncatedWhileRead(t *testing.T) {
	text := strings.Repeat(bare(1, 1, 1, "a", "x=1", 1, 2), 100000)
	for _, workers := range []int{0, 2} {
		path := filepath.Join(t.TempDir(), "rotated.log")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		cfg := newReadConfig(ReadOptions{})
		cfg.chunk = 64 << 10
		r := newReader([]Source{FileSource(path)}, cfg, workers)
		for i := 0; i < 10; i++ {
			require.True(t, r.Scan())
		}
		// copytruncate: the file shrinks while it is read.
		require.NoError(t, os.Truncate(path, 100))
		n := 10
		for r.Scan() {
			n++
		}
		assert.Less(t, n, 100000)
		assert.EqualError(t, r.Err(), "reading "+path+": the file shrank while it was read")
		require.NoError(t, r.Close())
	}
}
