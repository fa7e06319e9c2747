package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Check refuses, before a command reads or computes anything, outputs that
// would destroy what the command needs or one another:
//
//   - an output that is an existing regular file and also one of inputs,
//     however the two are spelled (relative paths, symbolic links, hard
//     links: they are compared with os.SameFile), since replacing it would
//     lose the input;
//   - two outputs that name the same file, "-" twice included, since the
//     second would overwrite or run into the first;
//   - an existing regular file that may not be written, as Create would.
//
// Empty outputs are ignored, and so are inputs that cannot be read (reading
// them reports that).
func Check(outputs, inputs []string) error {
	var ins []fs.FileInfo
	var inNames []string
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		if st, err := os.Stat(in); err == nil && st.Mode().IsRegular() {
			ins = append(ins, st)
			inNames = append(inNames, in)
		}
	}
	var outs []target
	for _, out := range outputs {
		if out == "" {
			continue
		}
		t := targetOf(out)
		for _, o := range outs {
			if o.same(t) && t.stdio {
				return errors.New("writing -: two outputs are standard output; give each output its own name")
			}
			if o.same(t) {
				return fmt.Errorf("writing %s: it is also the output %s; give each output its own name", out, o.name)
			}
		}
		outs = append(outs, t)
		if out == "-" {
			continue
		}
		st := t.st
		if st == nil || !st.Mode().IsRegular() {
			continue // a new name, or a device written in place
		}
		for i, in := range ins {
			if os.SameFile(st, in) {
				return fmt.Errorf("writing %s: it is the input %s, which it would replace; name another output file", out, inNames[i])
			}
		}
		if err := writable(out); err != nil {
			return err
		}
	}
	return nil
}

// A target is what an output names: standard output, an existing file,
// or the absolute name a new file would be created under (through a
// dangling link, with the links of its directory resolved).
type target struct {
	name  string // as given
	stdio bool
	st    fs.FileInfo // nil for a new file
	path  string      // a new file's name
}

func targetOf(out string) target {
	t := target{name: out}
	if out == "-" {
		t.stdio = true
		return t
	}
	if st, err := os.Stat(out); err == nil {
		t.st = st
		return t
	}
	name, err := linkTarget(out)
	if err != nil {
		name = out
	}
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	t.path = filepath.Join(dir, base)
	return t
}

// same reports whether two targets are one file.
func (t target) same(u target) bool {
	switch {
	case t.stdio || u.stdio:
		return t.stdio && u.stdio
	case t.st != nil && u.st != nil:
		return os.SameFile(t.st, u.st)
	case t.st == nil && u.st == nil:
		return t.path == u.path
	}
	return false
}
