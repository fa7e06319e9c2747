package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// armPlaceholder stands in a ruler for what names an arm.
const ArmPlaceholder = "{arm}"

// Ruler returns a block's [stamp] text with what names its arm set aside
// (docs/ab-reference.md "Same ruler"): every occurrence of a naming string,
// longest first, becomes {arm}. Two blocks measure with the same ruler when
// their rulers are byte-equal.
func Ruler(stamp string, naming []string) string {
	ns := append([]string(nil), naming...)
	sort.Slice(ns, func(i, j int) bool { return len(ns[i]) > len(ns[j]) })
	for _, n := range ns {
		if n != "" {
			stamp = strings.ReplaceAll(stamp, n, ArmPlaceholder)
		}
	}
	return stamp
}

// RulerHash is the short hash of a ruler the journal header records.
func RulerHash(ruler string) string {
	h := sha256.Sum256([]byte(ruler))
	return hex.EncodeToString(h[:8])
}

// A RulerError says that a block's stamp, its arm set aside, differs from
// the campaign's ruler: the two arms are not measured the same way.
type RulerError struct {
	Block string // the block that differs, "round 3 head"
	Want  string // the campaign's ruler (from its first block)
	Got   string
}

func (e *RulerError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "stamp mismatch: %s was not measured with the campaign's ruler "+
		"(its [stamp] differs beyond the fields that name the arm)\n", e.Block)
	b.WriteString(RulerDiff(e.Want, e.Got))
	return strings.TrimRight(b.String(), "\n")
}

// RulerDiff shows two rulers word by word: the words only the first has
// ("- "), only the second has ("+ "), and both in full.
func RulerDiff(want, got string) string {
	wf, gf := strings.Fields(want), strings.Fields(got)
	count := map[string]int{}
	for _, w := range gf {
		count[w]++
	}
	var b strings.Builder
	for _, w := range wf {
		if count[w] > 0 {
			count[w]--
			continue
		}
		fmt.Fprintf(&b, "  - %s\n", w)
	}
	count = map[string]int{}
	for _, w := range wf {
		count[w]++
	}
	for _, w := range gf {
		if count[w] > 0 {
			count[w]--
			continue
		}
		fmt.Fprintf(&b, "  + %s\n", w)
	}
	if b.Len() == 0 {
		b.WriteString("  (the same words in another order or spacing)\n")
	}
	fmt.Fprintf(&b, "  campaign: %s\n  block:    %s\n", want, got)
	return b.String()
}
