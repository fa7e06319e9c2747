package outfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chdir runs the rest of the test in dir, for the relative spellings.
func chdir(t *testing.T, dir string) {
	t.Helper()
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	t.Cleanup(func() { os.Chdir(wd) })
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	chdir(t, dir)
	require.NoError(t, os.WriteFile("x.log", []byte("log"), 0o644))
	require.NoError(t, os.WriteFile("x.log.gz", []byte("gz"), 0o644))
	require.NoError(t, os.WriteFile("old.json", []byte("old"), 0o644))
	require.NoError(t, os.Symlink("x.log", "link.log"))
	require.NoError(t, os.Link("x.log", "hard.log"))
	require.NoError(t, os.Symlink("new.json", "dangling"))
	require.NoError(t, os.Mkdir("sub", 0o755))
	require.NoError(t, os.Symlink("sub", "subl"))

	cases := []struct {
		name    string
		outputs []string
		inputs  []string
		err     string // "" when the outputs may be written
	}{
		{"a new output", []string{"out.json"}, []string{"x.log"}, ""},
		{"an existing other file", []string{"old.json"}, []string{"x.log"}, ""},
		{"two outputs", []string{"a.json", "a.html"}, []string{"x.log"}, ""},
		{"stdout and a file", []string{"-", "a.html"}, []string{"x.log"}, ""},
		{"empty outputs are ignored", []string{"", ""}, []string{"x.log"}, ""},
		{"a device that is also read", []string{"/dev/null"}, []string{"/dev/null"}, ""},
		{"the input itself", []string{"x.log"}, []string{"x.log"}, "writing x.log: it is the input x.log"},
		{"the gzipped input", []string{"x.log.gz"}, []string{"x.log.gz"}, "writing x.log.gz: it is the input x.log.gz"},
		{"the input relative", []string{"./x.log"}, []string{"x.log"}, "writing ./x.log: it is the input x.log"},
		{"the input absolute", []string{filepath.Join(dir, "x.log")}, []string{"sub/../x.log"}, "it is the input sub/../x.log"},
		{"the input through a link", []string{"x.log"}, []string{"link.log"}, "writing x.log: it is the input link.log"},
		{"a link to the input", []string{"link.log"}, []string{"x.log"}, "writing link.log: it is the input x.log"},
		{"a hard link to the input", []string{"hard.log"}, []string{"x.log"}, "writing hard.log: it is the input x.log"},
		{"the second input", []string{"a.json", "x.log"}, []string{"old.json", "x.log"}, "writing x.log: it is the input x.log"},
		{"one new name twice", []string{"a.json", "a.json"}, nil, "writing a.json: it is also the output a.json"},
		{"one new name respelled", []string{"a.json", "./sub/../a.json"}, nil, "writing ./sub/../a.json: it is also the output a.json"},
		{"one new name absolute", []string{"a.json", filepath.Join(dir, "a.json")}, nil, "it is also the output a.json"},
		{"through a linked directory", []string{"sub/a.json", "subl/a.json"}, nil, "writing subl/a.json: it is also the output sub/a.json"},
		{"a dangling link and its target", []string{"dangling", "new.json"}, nil, "writing new.json: it is also the output dangling"},
		{"one existing file twice", []string{"old.json", "./old.json"}, nil, "writing ./old.json: it is also the output old.json"},
		{"stdout twice", []string{"-", "-"}, nil, "writing -: two outputs are standard output"},
		{"a directory", []string{"sub"}, nil, ""}, // Create says it is a directory
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.outputs, tc.inputs)
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}
