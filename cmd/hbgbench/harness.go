package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/spf13/cobra"
)

// HarnessOptions are the settings of one `hbgbench harness` run.
type HarnessOptions struct {
	Out        io.Writer   // the command's stdout
	Err        io.Writer   // the command's stderr
	Settings   [][2]string // variant flags given, as (flag name, value), in Keys order
	Rounds     int
	Output     string // -o: log file, "-" for stdout
	RecordsDir string
}

// NewCmdHarness builds the harness command. runF replaces harnessRun in
// tests; nil means harnessRun.
func NewCmdHarness(runF func(*HarnessOptions) error) *cobra.Command {
	opts := &HarnessOptions{}
	def := runtimeharness.DefaultConfig()
	values := map[string]*string{}
	cmd := &cobra.Command{
		Use:   "harness [variant flags] [--rounds N] [-o LOG]",
		Short: "Run the embedded runtime model once and write its log",
		Long: `harness runs the embedded model of simpler's host_build_graph bind
path in this process: the host work of each bind is real (82 MB SM mirror,
host arena, recorder threads, staged args); only the device is modelled
(dev=model). It writes the runtime's log text: a [stamp] line, one
[CLOCK_ANCHOR], and per bind the bind phase= and host-orch phase= lines
and the chip.run spans.

Switches (values, default first):
  --workload    dsv4-pair, qwen3-14b-decode, dsv4-blocks7
  --mirror      per_bind, retained
  --recorders   prewarm=8, prewarm=N, ondemand (= prewarm=0)
  --graph-pod   current, deferred_pageable, eager_pinned
  --delay-us    0, N (busy delay in host_orch)
  --args-bytes  4MiB, N (bytes staged by args; KiB, MiB, GiB)
  --ranks       1, 2 (one forked process per rank)
  --epoch       e1, e2 (counters appended), e3 (spans), pr1870
  --device      model[:call_ns=N:pin_ns=N:dma_bps=N:bounce=N],
                ascend (ACL from $ASCEND_HOME_PATH/lib64; unverified
                on hardware)`,
		Example: `  hbgbench harness --rounds 5 -o bind.log
  hbgbench harness --mirror retained --epoch e2 --rounds 20
  hbgbench harness --workload dsv4-blocks7 --recorders prewarm=4
  hbgbench harness --graph-pod eager_pinned --epoch e3 --rounds 3
  hbgbench harness --ranks 2 --rounds 3 -o ranks.log
  hbgbench harness --records-dir out/ --rounds 3 | hbgtrace phases -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Out = cmd.OutOrStdout()
			opts.Err = cmd.ErrOrStderr()
			opts.Settings = nil
			for _, k := range runtimeharness.Keys() {
				name := flagName(k)
				if cmd.Flags().Changed(name) {
					opts.Settings = append(opts.Settings, [2]string{name, *values[name]})
				}
			}
			if opts.Rounds < 1 {
				return usagef(cmd, "--rounds %d: want at least 1", opts.Rounds)
			}
			if runF != nil {
				return runF(opts)
			}
			return harnessRun(opts)
		},
	}
	// The flag's value name goes in backquotes (pflag shows it instead of
	// "string"); the values are listed in Long.
	help := map[string]string{
		"workload":   "host work `preset`",
		"mirror":     "SM mirror `policy`",
		"recorders":  "recorder `threads`",
		"graph_pod":  "Graph POD `upload`",
		"delay_us":   "busy delay in host_orch, in `us`",
		"args_bytes": "`bytes` staged by args",
		"ranks":      "`ranks`, one process each",
		"epoch":      "log `generation`",
		"device":     "device `backend`",
	}
	for _, k := range runtimeharness.Keys() {
		name := flagName(k)
		dv := def.Get(k)
		if k == "args_bytes" {
			dv = "4MiB"
		}
		values[name] = cmd.Flags().String(name, dv, help[k])
	}
	cmd.Flags().IntVar(&opts.Rounds, "rounds", 5, "`N` binds to run")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "-", "`LOG` file, - for stdout")
	cmd.Flags().StringVar(&opts.RecordsDir, "records-dir", "",
		"write host_phase_records.jsonl into `DIR`")
	return cmd
}

// flagName maps a setting key to its flag: graph_pod -> graph-pod.
func flagName(key string) string { return strings.ReplaceAll(key, "_", "-") }

// harnessRun applies the settings, refuses what cannot run before any
// work, and runs the model in this process.
func harnessRun(opts *HarnessOptions) error {
	cfg := runtimeharness.DefaultConfig()
	for _, s := range opts.Settings {
		if err := cfg.Set(s[0], s[1]); err != nil {
			return flagError(s[0], s[1], err)
		}
	}
	if err := cfg.Validate(); err != nil {
		var ce *runtimeharness.ConfigError
		if errors.As(err, &ce) {
			return flagError(flagName(ce.Key), ce.Value, err)
		}
		return err
	}
	w := opts.Out
	if opts.Output != "" && opts.Output != "-" {
		f, err := os.Create(opts.Output)
		if err != nil {
			return fmt.Errorf("harness: %w", err)
		}
		defer f.Close()
		w = f
	}
	res, err := runtimeharness.RunModel(cfg, runtimeharness.ModelOptions{
		Rounds: opts.Rounds, Log: w, RecordsDir: opts.RecordsDir,
	})
	if err != nil {
		if w == opts.Out && errors.Is(err, syscall.EPIPE) {
			// The reader of stdout went away (`| head`): stop quietly,
			// as a shell tool does.
			return nil
		}
		return fmt.Errorf("harness: %w", err)
	}
	if f, ok := w.(*os.File); ok && w != opts.Out {
		if err := f.Close(); err != nil {
			return fmt.Errorf("harness: %w", err)
		}
		fmt.Fprintf(opts.Err, "hbgbench: harness: wrote %d binds to %s\n", res.Binds, opts.Output)
	}
	return nil
}

// flagError rewrites a refused setting in the terms of its flag; it wraps
// the *runtimeharness.ConfigError (and ErrNotImplemented) for the exit
// status.
func flagError(name, value string, err error) error {
	var ce *runtimeharness.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	why := ce.Reason
	if why == "" && ce.Err != nil {
		why = ce.Err.Error()
	}
	return &settingError{msg: fmt.Sprintf("harness: --%s %s: %s", name, value, why), err: err}
}

// settingError is a refused flag value, worded for the command line.
type settingError struct {
	msg string
	err error
}

func (e *settingError) Error() string { return e.msg }

func (e *settingError) Unwrap() error { return e.err }
