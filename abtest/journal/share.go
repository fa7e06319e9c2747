package journal

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseShare reads a share as a command line or a recipe gives it, "1%"
// or "0.01", as 0.01: Config's Margin and MaxFail.
func ParseShare(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if p, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = p, 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: want a share such as 1%% or 0.01", s)
	}
	return v * scale, nil
}
