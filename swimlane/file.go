package swimlane

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// WriteFile writes a document to path with write, atomically: into a
// temporary file in the same directory that is renamed over path only once
// it is complete, so a failure never leaves half a file behind. A path
// ending in .gz is gzip-compressed (Perfetto and chrome://tracing open
// such files as they are).
func WriteFile(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	var w io.Writer = f
	var zw *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		zw = gzip.NewWriter(f)
		zw.Name = strings.TrimSuffix(base, ".gz")
		w = zw
	}
	if err = write(w); err != nil {
		return err
	}
	if zw != nil {
		if err = zw.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
