package trace

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAutoloadRecords(t *testing.T) {
	tests := []struct {
		name string
		line string
		want string // "" when no record
	}{
		{"with raw",
			`[mono_ns=1][T0xa][INFO] run: torch_backend_autoload setting=0 raw="0" raw_truncated=false effective=disabled torch_imported=true torch_npu_loaded=false trailing`,
			`torch_backend_autoload setting=0 raw="0" raw_truncated=false effective=disabled torch_imported=true torch_npu_loaded=false`},
		{"raw null", `torch_backend_autoload setting=unset raw=null raw_truncated=false effective=enabled torch_imported=false torch_npu_loaded=false`,
			`torch_backend_autoload setting=unset raw=null raw_truncated=false effective=enabled torch_imported=false torch_npu_loaded=false`},
		{"raw with escaped quote and space", `x torch_backend_autoload setting=1 raw="a \" b" raw_truncated=true effective=enabled torch_imported=true torch_npu_loaded=true`,
			`torch_backend_autoload setting=1 raw="a \" b" raw_truncated=true effective=enabled torch_imported=true torch_npu_loaded=true`},
		{"without raw", `torch_backend_autoload setting=0 effective=disabled torch_imported=true torch_npu_loaded=false`,
			`torch_backend_autoload setting=0 effective=disabled torch_imported=true torch_npu_loaded=false`},
		{"bad boolean", `torch_backend_autoload setting=0 effective=disabled torch_imported=yes torch_npu_loaded=false`, ""},
		{"cut short", `torch_backend_autoload setting=0 effective=disabled torch_imported=true`, ""},
		{"empty setting", `torch_backend_autoload setting= effective=disabled torch_imported=true torch_npu_loaded=false`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := readLogString(t, tc.line+"\n")
			if tc.want == "" {
				assert.Empty(t, l.Autoloads)
				return
			}
			assert.Equal(t, []string{tc.want}, l.Autoloads)
		})
	}
}

func TestAutoloadDistinctFirstSeen(t *testing.T) {
	a := "torch_backend_autoload setting=0 effective=disabled torch_imported=true torch_npu_loaded=false"
	b := "torch_backend_autoload setting=1 effective=enabled torch_imported=true torch_npu_loaded=true"
	l := readLogString(t, strings.Join([]string{b, a, b, a}, "\n")+"\n")
	assert.Equal(t, []string{b, a}, l.Autoloads)
}

func readLogString(t *testing.T, s string) *Log {
	t.Helper()
	l, err := ReadLog([]Source{ReaderSource("test.log", strings.NewReader(s))})
	require.NoError(t, err)
	return l
}
