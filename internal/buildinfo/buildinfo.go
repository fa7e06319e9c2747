// Package buildinfo says which hbgkit a binary is: the module version and
// the VCS revision the Go toolchain stamped into it.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Info is what the toolchain recorded about this binary.
type Info struct {
	Module   string // module version, "(devel)" for a local build
	Revision string // VCS revision, "" when not built from a checkout
	Modified bool   // the checkout had uncommitted changes
	Go       string // toolchain version
}

// Read returns the build information of the running binary.
func Read() Info {
	info := Info{Module: "(devel)"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	info.Go = bi.GoVersion
	if bi.Main.Version != "" {
		info.Module = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// String is the one-line form written into journals: "hbgkit (devel)
// rev 2e6fd16a+dirty go1.26.8".
func (i Info) String() string { return "hbgkit " + i.version() }

// Program is the --version line of one of hbgkit's commands, the same for
// every command but its name: "hbgbench (hbgkit) v0.3.0 rev 2e6fd16a0123
// go1.26.8".
func (i Info) Program(name string) string { return name + " (hbgkit) " + i.version() }

// version is the module version, the revision and the toolchain.
func (i Info) version() string {
	var b strings.Builder
	b.WriteString(i.Module)
	if i.Revision != "" {
		rev := i.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		b.WriteString(" rev ")
		b.WriteString(rev)
		if i.Modified {
			b.WriteString("+dirty")
		}
	}
	if i.Go != "" {
		b.WriteString(" ")
		b.WriteString(i.Go)
	}
	return b.String()
}
