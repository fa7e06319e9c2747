package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// ReadShards reads the journals of a campaign's shards: each path is a
// journal, or a directory whose journals (*.jsonl) are read in name order.
func ReadShards(paths []string) ([]*Journal, error) {
	var files []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			files = append(files, p)
			continue
		}
		js, err := filepath.Glob(filepath.Join(p, "*.jsonl"))
		if err != nil {
			return nil, err
		}
		if len(js) == 0 {
			return nil, fmt.Errorf("%s: no journal (*.jsonl) in the directory", p)
		}
		sort.Strings(js)
		files = append(files, js...)
	}
	var out []*Journal
	for _, f := range files {
		j, err := ReadJournal(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, j)
	}
	return out, nil
}
