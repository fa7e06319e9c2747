// Package outfile opens the target of an -o flag so that writing it never
// destroys what the name points at. Its rule, the same for every command:
//
//   - "-" is standard output;
//   - an existing target that is not a regular file (a device such as
//     /dev/stdout or /dev/null, a FIFO, a socket) is opened and written in
//     place, and a failed write is reported, never replaced by a file;
//   - a directory is an error that says so;
//   - an existing regular file the user may not write is an error, where the
//     shell's > would be refused too: the temporary file and rename below
//     need only the directory, so without this check a read-only file
//     would be replaced;
//   - anything else — an existing regular file, or a new name — is written
//     to a temporary file next to it (handed to the kernel's write-back as
//     it is written), synced, and renamed over the target
//     only once complete, so a failure leaves the old file (or none), never
//     a partial one. A symbolic link replaces the file it points at, never
//     the link, and a dangling one creates its target, as > does.
//
// Check refuses, before a command reads anything, the outputs that would
// destroy one of its inputs or one another.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// A File is an -o target open for writing. Write to it, then Commit; on any
// failure call Abort (Abort after Commit does nothing), so a deferred Abort
// is always safe.
type File struct {
	name   string // the target as named
	final  string // the regular file the temp file replaces ("" unless atomic)
	w      io.Writer
	f      *os.File // nil for standard output
	mode   fs.FileMode
	done   bool
	failed error // the first write error

	written, flushed int64 // bytes written to a temporary file, and handed to write-back
}

// writebackChunk is how many bytes of a temporary file are written before
// the kernel is asked to start writing them to disk (startWriteback): a
// 48 MB trace synced only at Commit spent a quarter of its command's wall
// time in that one Sync.
const writebackChunk = 2 << 20

// Create opens the target path per the package rule; stdout is what "-"
// writes to.
func Create(path string, stdout io.Writer) (*File, error) {
	if path == "" {
		return nil, errors.New("no output file named")
	}
	if path == "-" {
		return &File{name: path, w: stdout}, nil
	}
	st, err := os.Stat(path) // follows symbolic links
	switch {
	case err == nil && st.IsDir():
		return nil, fmt.Errorf("writing %s: it is a directory; name a file in it", path)
	case err == nil && !st.Mode().IsRegular():
		// A device or a FIFO: write in place, whatever it is.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("writing %s: %w", path, err)
		}
		return &File{name: path, w: f, f: f}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	final, mode := path, fs.FileMode(0o644)
	if err == nil {
		if err := writable(path); err != nil {
			return nil, err
		}
		mode = st.Mode().Perm()
		if real, err := filepath.EvalSymlinks(path); err == nil {
			final = real
		}
	} else if final, err = linkTarget(path); err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	dir, base := filepath.Split(final)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return &File{name: path, final: final, w: f, f: f, mode: mode}, nil
}

// writable reports whether the existing regular file at path may be
// written, by opening it for writing without truncating it: the open the
// shell's > makes, so the answer is the kernel's, for the effective user,
// with its capabilities (root writes a 0444 file, as with >), ACLs, a
// read-only mount or an immutable file. access(2) would answer for the
// real user instead. Opening changes nothing in the file.
func writable(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("writing %s: the file may not be written (%w); it is left as it was", path, err)
	}
	return f.Close()
}

// linkTarget returns the name a new file at path is created under: path
// itself, or, when path is a dangling symbolic link (through any chain of
// links), the missing name it ends at, as open(2) with O_CREAT does; the
// link is then left a link.
func linkTarget(path string) (string, error) {
	for range 40 { // Linux's MAXSYMLINKS
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			// Relative to the link's directory, left uncleaned (Split,
			// not Dir) so the kernel resolves its links and ".." as
			// open(2) would.
			dir, _ := filepath.Split(path)
			to = dir + to
		}
		path = to
	}
	return "", fmt.Errorf("too many levels of symbolic links")
}

// Name returns the target as it was named.
func (f *File) Name() string { return f.name }

// Write writes p to the target; an error names it.
func (f *File) Write(p []byte) (int, error) {
	if f.failed != nil {
		return 0, f.failed
	}
	n, err := f.w.Write(p)
	if err != nil {
		f.failed = fmt.Errorf("writing %s: %w", f.name, err)
		return n, f.failed
	}
	if f.final != "" {
		f.written += int64(n)
		if f.written-f.flushed >= writebackChunk {
			startWriteback(f.f, f.flushed, f.written-f.flushed)
			f.flushed = f.written
		}
	}
	return n, nil
}

// Commit finishes the target: a temporary file is synced and renamed over
// it; a device or FIFO is closed. The first write error, if any, is
// returned instead, and a temporary file is removed.
func (f *File) Commit() error {
	if f.done {
		return errors.New("writing " + f.name + ": already finished")
	}
	if f.failed != nil {
		f.Abort()
		return f.failed
	}
	f.done = true
	if f.f == nil {
		return nil
	}
	if f.final == "" {
		if err := f.f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", f.name, err)
		}
		return nil
	}
	tmp := f.f.Name()
	err := f.f.Chmod(f.mode)
	if err == nil {
		err = f.f.Sync()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, f.final)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", f.name, err)
	}
	return nil
}

// Abort gives up: a temporary file is removed and the target left as it
// was; a device or FIFO is closed. It does nothing after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if f.f == nil {
		return
	}
	f.f.Close()
	if f.final != "" {
		os.Remove(f.f.Name())
	}
}

// Write creates path (Create), hands it to write and commits it; when
// write fails the target is left as it was (for a regular file) and
// write's error is returned.
func Write(path string, stdout io.Writer, write func(io.Writer) error) error {
	f, err := Create(path, stdout)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		if f.failed != nil && errors.Is(err, f.failed) {
			return f.failed
		}
		return err
	}
	return f.Commit()
}
