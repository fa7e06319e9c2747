package buildinfo

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	cases := []struct {
		in   Info
		want string
	}{
		{Info{Module: "(devel)"}, "hbgkit (devel)"},
		{Info{Module: "v0.3.0", Revision: "2e6fd16a0123456789", Modified: true, Go: "go1.26.8"}, "hbgkit v0.3.0 rev 2e6fd16a0123+dirty go1.26.8"},
		{Info{Module: "(devel)", Revision: "abc", Go: "go1.26.8"}, "hbgkit (devel) rev abc go1.26.8"},
	}
	for _, c := range cases {
		if got := c.in.String(); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.in, got, c.want)
		}
	}
}

// TestProgram: every command names itself, then hbgkit, then the same
// version as String.
func TestProgram(t *testing.T) {
	i := Info{Module: "v0.3.0", Revision: "2e6fd16a0123456789", Go: "go1.26.8"}
	if got, want := i.Program("hbgtrace"), "hbgtrace (hbgkit) v0.3.0 rev 2e6fd16a0123 go1.26.8"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := strings.TrimPrefix(i.Program("hbgbench"), "hbgbench (hbgkit) "), strings.TrimPrefix(i.String(), "hbgkit "); got != want {
		t.Errorf("Program and String disagree on the version: %q, %q", got, want)
	}
}

func TestReadInTest(t *testing.T) {
	got := Read()
	if got.Module == "" {
		t.Fatal("empty module version")
	}
	if !strings.HasPrefix(got.Go, "go") {
		t.Fatalf("toolchain %q does not look like a Go version", got.Go)
	}
}
