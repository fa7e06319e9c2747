package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFormatsDocExamples runs every example line of docs/formats.md through
// the reader (or the records loader, for JSON) and checks that it yields the
// record its section describes.
func TestFormatsDocExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "formats.md"))
	require.NoError(t, err)
	section := ""
	n := 0
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "## ") {
			section = strings.TrimPrefix(line, "## ")
			continue
		}
		ex, ok := strings.CutPrefix(line, "    ")
		if !ok || strings.TrimSpace(ex) == "" {
			continue
		}
		n++
		t.Run(section+"/"+ex[:min(len(ex), 40)], func(t *testing.T) {
			if strings.HasPrefix(ex, "{") {
				p := filepath.Join(t.TempDir(), "r.jsonl")
				require.NoError(t, os.WriteFile(p, []byte(ex+"\n"), 0o644))
				passes, err := LoadPhaseRecords([]string{p})
				require.NoError(t, err)
				require.Len(t, passes, 1)
				_, _, _, ok := passes[0].Records[0].Interval()
				assert.True(t, ok)
				return
			}
			if strings.HasPrefix(ex, "warning: ") {
				// An example of output, not input: its shape is one the
				// warnings tests pin.
				assert.Regexp(t, `^warning: (\d+ of \d+ \[STRACE\] records are incomplete|incomplete \[STRACE\] records: \S+:\d+ \(|\d+ .+ line\(s\) did not parse and are left out: \S+:\d+ \()`, ex)
				return
			}
			l := readText(t, ex+"\n")
			switch {
			case strings.HasPrefix(ex, "…name="):
				assert.Equal(t, 1, l.Heads, "a cut example is one torn head")
			case strings.Contains(section, "envelope"):
				var c lineCursor
				c.reset([]byte(ex), true)
				assert.True(t, c.prefixAt(0), "a complete prefix")
				assert.Empty(t, l.Spans)
			case strings.Contains(section, "STRACE"):
				assert.Len(t, l.Spans, 1)
			case strings.Contains(section, "CLOCK_ANCHOR"):
				assert.Len(t, l.Anchors, 1)
			case strings.Contains(section, "bind phase"):
				require.Len(t, l.BindPhases, 1)
				assert.True(t, l.BindPhases[0].Enveloped)
			case strings.Contains(section, "host-orch"):
				assert.Len(t, l.HostOrch, 1)
			case strings.Contains(section, "stamp"):
				assert.NotNil(t, l.Stamp)
			case strings.Contains(section, "HOSTLOG_DROPS"):
				assert.Len(t, l.Drops, 1)
			case strings.Contains(section, "torch_backend_autoload"):
				assert.Equal(t, []string{ex}, l.Autoloads)
			default:
				t.Fatalf("example in an unexpected section %q", section)
			}
		})
	}
	assert.GreaterOrEqual(t, n, 8)
}
