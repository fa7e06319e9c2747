// Package golden compares a test's output with a golden file under
// testdata/ and, under go test -update, rewrites the file instead. It
// registers the -update flag once for every test binary that imports it;
// a test that rewrites something other than a golden file (a document's
// examples, a screenshot) asks Update.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

var update = flag.Bool("update", false, "rewrite the golden files (and generated documents) from the current output")

// Update reports whether the test binary runs with -update.
func Update() bool { return *update }

// Check compares got with the golden file at path and fails t, with a
// diff, when they differ; it then writes got beside it as path.got, for
// a closer look (git ignores *.got). Under -update it writes got to path
// instead, creating its directory.
func Check[T ~string | ~[]byte](t testing.TB, path string, got T) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("updating golden file: %v", err)
			return
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("updating golden file: %v", err)
			return
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file: %v; go test -update writes it", err)
		return
	}
	if bytes.Equal(want, []byte(got)) {
		_ = os.Remove(path + ".got")
		return
	}
	_ = os.WriteFile(path+".got", []byte(got), 0o644)
	assert.Equal(t, string(want), string(got), "differs from %s (wrote %s.got; go test -update rewrites it)", path, path)
}
