package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hbgkit/hbgkit/swimlane"
)

// The views of `hbgtrace lanes`, of `--base A --head B` on gaps and
// lanes, and of their --assert results.

// WriteLanes writes a lane summary in format: text, markdown or json.
func WriteLanes(w io.Writer, format string, rep *swimlane.LaneReport) error {
	if format == FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	md := format == FormatMarkdown
	var b strings.Builder
	row := func(cells ...string) {
		if md {
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
			return
		}
		fmt.Fprintf(&b, "  %-34s %-12s %5s  %-26s %s\n", cells[0], cells[1], cells[2], cells[3], cells[4])
	}
	heading := func(s string) {
		if md {
			b.WriteString("\n**" + s + "**\n\n")
		} else {
			b.WriteString(s + "\n")
		}
	}
	var pid int64 = -1
	for _, l := range rep.Lanes {
		if l.Pid != pid {
			pid = l.Pid
			heading(fmt.Sprintf("lanes of pid=%d", pid))
			row("lane", "role", "binds", "busy/bind us min/med/max", "spans by name (count)")
			if md {
				b.WriteString("|---|---|---:|---|---|\n")
			}
		}
		row(fmt.Sprintf("%s (tid %d)", l.Name, l.Lane), l.Role, fmt.Sprint(l.Busy.N), stat3(l.Busy), spanCounts(l.Spans))
	}
	heading("binds")
	if md {
		b.WriteString("| bind | warm | recorder lanes | max concurrent recordings | gaps with a lane birth (lanes) | commit wait |\n|---|---|---:|---:|---:|---:|\n")
	}
	for _, bl := range rep.Binds {
		cw := "no build_definition record"
		if bl.HasCommit {
			cw = gapUS(bl.CommitWait) + " us"
		}
		warm := "cold"
		if bl.Warm {
			warm = "warm"
		}
		if md {
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d (%d) | %s |\n", bl.Label(), warm, bl.Recorders, bl.MaxConcurrent, bl.LaneBirths, bl.BornLanes, cw)
			continue
		}
		fmt.Fprintf(&b, "  %s (%s): %d recorder lane(s), max %d concurrent recording(s), %d gap(s) with a lane birth (%d lane(s)), commit wait %s\n",
			bl.Label(), warm, bl.Recorders, bl.MaxConcurrent, bl.LaneBirths, bl.BornLanes, cw)
	}
	heading("gaps on the submitting thread with lanes born inside")
	any := false
	for i := range rep.Gaps {
		g := &rep.Gaps[i]
		for _, p := range g.Gaps {
			if len(p.Created) == 0 {
				continue
			}
			any = true
			line := fmt.Sprintf("%s: gap %s us after graph_submit #%d at +%s us: %s", g.Label(), gapUS(p.Dur()), p.After, gapUS(p.Start-g.BindTs), swimlane.LaneNames(p.Created))
			if md {
				b.WriteString("- " + line + "\n")
			} else {
				b.WriteString("  " + line + "\n")
			}
		}
	}
	if !any {
		if len(rep.Gaps) == 0 {
			b.WriteString("  (no graph_submit records)\n")
		} else {
			b.WriteString("  none\n")
		}
	}
	heading(fmt.Sprintf("warm binds: commit wait us min/median/max %s (n=%d); max concurrent recordings %s (n=%d)",
		stat3(rep.CommitWait), rep.CommitWait.N, count3(rep.Concurrent), rep.Concurrent.N))
	_, err := io.WriteString(w, b.String())
	return err
}

func stat3(s swimlane.Stat) string {
	if s.N == 0 {
		return "-"
	}
	return gapUS(s.Min) + "/" + gapUS(s.Median) + "/" + gapUS(s.Max)
}

func count3(s swimlane.Stat) string {
	if s.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d/%d", s.Min, s.Median, s.Max)
}

// spanCounts lists a lane's span names with their counts, the eight
// commonest.
func spanCounts(ns []swimlane.NameCount) string {
	var parts []string
	for i, n := range ns {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("+%d more", len(ns)-8))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", n.Name, n.Count))
	}
	return strings.Join(parts, ", ")
}

// WriteLaneDiff writes the comparison of two sides in format: text,
// markdown or json. baseName and headName label the sides.
func WriteLaneDiff(w io.Writer, format, baseName, headName string, d swimlane.LaneDiff) error {
	if format == FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			BaseName string `json:"base_name"`
			HeadName string `json:"head_name"`
			swimlane.LaneDiff
		}{baseName, headName, d})
	}
	md := format == FormatMarkdown
	var b strings.Builder
	row := func(what, base, head, note string) {
		if md {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", what, base, head, note)
			return
		}
		b.WriteString(strings.TrimRight(fmt.Sprintf("  %-40s %-22s %-22s %s", what, base, head, note), " ") + "\n")
	}
	if md {
		fmt.Fprintf(&b, "base: `%s`, head: `%s`\n\n| | base | head | |\n|---|---|---|---|\n", baseName, headName)
	} else {
		fmt.Fprintf(&b, "base: %s\nhead: %s\n", baseName, headName)
		row("", "base", "head", "")
	}
	B, H := d.Base, d.Head
	row("binds (warm)", fmt.Sprintf("%d (%d)", B.Binds, B.WarmBinds), fmt.Sprintf("%d (%d)", H.Binds, H.WarmBinds), "")
	row("gaps on the submitting thread", fmt.Sprint(B.Gaps), fmt.Sprint(H.Gaps), "")
	row("gaps with a lane birth", fmt.Sprint(B.LaneBirths), fmt.Sprint(H.LaneBirths), birthNote(B, H))
	row("lanes born inside a gap", fmt.Sprint(B.BornLanes), fmt.Sprint(H.BornLanes), "")
	row("binds with a lane birth", fmt.Sprint(B.BindsWithBirth), fmt.Sprint(H.BindsWithBirth), "")
	row("commit wait us, warm: min/median/max", stat3(B.CommitWait), stat3(H.CommitWait), "")
	cw := d.CommitWait
	switch {
	case cw.HasCI:
		row(fmt.Sprintf("commit wait head - base, %d pairs", cw.Pairs), "",
			fmt.Sprintf("%+.1f us", cw.Mean/1e3), fmt.Sprintf("95%% CI [%+.1f, %+.1f] us%s", cw.Lo/1e3, cw.Hi/1e3, ciNote(cw)))
	case cw.Pairs > 0:
		row("commit wait head - base, 1 pair", "", fmt.Sprintf("%+.1f us", cw.Mean/1e3), "no interval from one pair")
	default:
		row("commit wait head - base", "", "-", "no warm bind with a commit on both sides")
	}
	row("max concurrent recordings, warm", count3(B.Concurrent), count3(H.Concurrent), "")
	row("recorder spans per worker lane", fmt.Sprintf("%.1f", B.RecordsPerWorker), fmt.Sprintf("%.1f", H.RecordsPerWorker), "")
	roles := map[string]bool{}
	for _, r := range B.RoleNames() {
		roles[r] = true
	}
	for _, r := range H.RoleNames() {
		roles[r] = true
	}
	for _, r := range swimlane.Roles {
		if roles[r] {
			row("lanes of role "+r, fmt.Sprint(B.LanesByRole[r]), fmt.Sprint(H.LanesByRole[r]), "")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func birthNote(b, h swimlane.SideSummary) string {
	switch {
	case b.LaneBirths > 0 && h.LaneBirths == 0:
		return "disappeared: no lane is created inside a gap in head"
	case b.LaneBirths == 0 && h.LaneBirths > 0:
		return "appeared: head creates lanes inside gaps"
	}
	return ""
}

func ciNote(d swimlane.PairedDiff) string {
	switch {
	case d.Hi < 0:
		return ": fell"
	case d.Lo > 0:
		return ": rose"
	}
	return ": no clear change"
}

// An AssertResult is one assertion's outcome on one log or side.
type AssertResult struct {
	Side      string             `json:"side,omitempty"` // base or head; empty for one log
	Log       string             `json:"log"`
	Assertion string             `json:"assertion"`
	Failures  []swimlane.Failure `json:"failures"`
}

// WriteAsserts writes the assertions' outcomes: one line per assertion
// (PASS or FAIL), and under a failing one a line per failure.
func WriteAsserts(w io.Writer, format string, rs []AssertResult) error {
	if format == FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rs)
	}
	var b strings.Builder
	for _, r := range rs {
		verdict := "PASS"
		if len(r.Failures) > 0 {
			verdict = "FAIL"
		}
		where := r.Log
		if r.Side != "" {
			where = r.Side + " " + r.Log
		}
		if format == FormatMarkdown {
			fmt.Fprintf(&b, "- **%s** `%s` on %s\n", verdict, r.Assertion, where)
		} else {
			fmt.Fprintf(&b, "%s %s  (%s)\n", verdict, r.Assertion, where)
		}
		for _, f := range r.Failures {
			if format == FormatMarkdown {
				fmt.Fprintf(&b, "  - %s: %s\n", f.Where, f.What)
			} else {
				fmt.Fprintf(&b, "  %s: %s\n", f.Where, f.What)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
