package runtimeharness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/hbgkit/hbgkit/trace"
)

// RecordsFile is the name of the per-pass records artifact the model
// appends to in ModelOptions.RecordsDir (docs/formats.md
// "host_phase_records.jsonl").
const RecordsFile = trace.RecordsFile

// ModelOptions say how to run the model once.
type ModelOptions struct {
	Rounds     int       // binds to run
	Log        io.Writer // receives the log; an *os.File is written directly
	RecordsDir string    // when set, host_phase_records.jsonl is appended there
	BindStats  bool      // keep every bind's counters in ModelResult.Stats
	// CPUs is the CPU list this process was pinned to, for the stamp
	// (HostFacts.CPUs); "" when it was not.
	CPUs string
	// Load names the load beside this process, for the stamp
	// (HostFacts.Load); "" for none.
	Load string
}

// RunModel runs the embedded model in this process: opts.Rounds binds of
// cfg, each log record written with one write(2) to opts.Log. It refuses an
// invalid or unimplemented config before any work. Runs in one process are
// serialised; the [CLOCK_ANCHOR] is written once per process and the
// invocation counter is process-wide, as in the runtime, so a fresh process
// per block (EmbeddedRunner) is what gives each log its own anchor.
func RunModel(cfg Config, opts ModelOptions) (*ModelResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Rounds < 1 {
		return nil, fmt.Errorf("running the model: rounds %d: want at least 1", opts.Rounds)
	}
	if opts.Log == nil {
		return nil, errors.New("running the model: no log writer")
	}
	if !cgoAvailable {
		return runModel(cfg, opts.Rounds, 0, "", "", false)
	}
	recordsPath := ""
	if opts.RecordsDir != "" {
		if err := os.MkdirAll(opts.RecordsDir, 0o755); err != nil {
			return nil, fmt.Errorf("running the model: %w", err)
		}
		recordsPath = filepath.Join(opts.RecordsDir, RecordsFile)
	}
	host := Host()
	host.CPUs, host.Load = opts.CPUs, opts.Load
	stamp := Stamp(cfg, opts.Rounds, host)

	if f, ok := opts.Log.(*os.File); ok {
		res, err := runModel(cfg, opts.Rounds, f.Fd(), stamp, recordsPath, opts.BindStats)
		runtime.KeepAlive(f)
		return res, wrapRun(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("running the model: %w", err)
	}
	copied := make(chan error, 1)
	go func() {
		_, err := io.Copy(opts.Log, r)
		if err != nil {
			// Keep draining so the model never blocks on a full pipe.
			_, _ = io.Copy(io.Discard, r)
		}
		r.Close()
		copied <- err
	}()
	res, runErr := runModel(cfg, opts.Rounds, w.Fd(), stamp, recordsPath, opts.BindStats)
	runtime.KeepAlive(w)
	closeErr := w.Close()
	copyErr := <-copied
	switch {
	case runErr != nil:
		return res, wrapRun(runErr)
	case copyErr != nil:
		return res, fmt.Errorf("running the model: writing the log: %w", copyErr)
	case closeErr != nil:
		return res, fmt.Errorf("running the model: %w", closeErr)
	}
	return res, nil
}

func wrapRun(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("running the model: %w", err)
}
