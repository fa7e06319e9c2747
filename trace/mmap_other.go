//go:build !linux

package trace

import "os"

// mapFile maps nothing on this system: files are read.
func mapFile(*os.File) ([]byte, bool) { return nil, false }

func unmapFile([]byte) {}

func dropPages([]byte) {}
