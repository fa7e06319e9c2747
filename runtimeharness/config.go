package runtimeharness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNotImplemented marks a setting that names a real variant the harness
// does not run yet. Every variant of docs/harness.md "Switches" runs
// today, so nothing
// returns it; it stays for callers that map it to exit status 2.
var ErrNotImplemented = errors.New("not yet implemented")

// AscendHomeEnv names the CANN installation whose lib64/libascendcl.so the
// ascend device backend loads.
const AscendHomeEnv = "ASCEND_HOME_PATH"

// ascendLibrary returns the ACL library the ascend backend loads.
func ascendLibrary() string {
	home := os.Getenv(AscendHomeEnv)
	if home == "" {
		return ""
	}
	return filepath.Join(home, "lib64", "libascendcl.so")
}

// A ConfigError is a setting the harness refuses, found before any work.
type ConfigError struct {
	Key    string // canonical key, e.g. "graph_pod"
	Value  string // the value as given
	Reason string
	Err    error // ErrNotImplemented for real but unimplemented variants
}

func (e *ConfigError) Error() string {
	if e.Reason == "" && e.Err != nil {
		return fmt.Sprintf("%s=%s: %v", e.Key, e.Value, e.Err)
	}
	return fmt.Sprintf("%s=%s: %s", e.Key, e.Value, e.Reason)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// Workload names a preset of host work (docs/harness.md "Workloads").
type Workload string

// The workloads.
const (
	WorkloadDSV4Pair    Workload = "dsv4-pair"
	WorkloadQwen3Decode Workload = "qwen3-14b-decode"
	WorkloadDSV4Blocks7 Workload = "dsv4-blocks7"
)

// MirrorBytes is the size of the SM mirror at the task window of 16384:
// a 256-byte header and 16384 slots of 5,033 bytes.
const MirrorBytes = 82_460_928

// Defaults and limits of the settings; the C model checks them again.
const (
	defaultPrewarm            = 8
	maxPrewarm                = 64
	defaultArgsBytes          = 4 << 20
	maxArgsBytes              = 1 << 30
	maxDelayUS                = 10_000_000
	defaultDeviceCallNS       = 5_000
	defaultDevicePinNS        = 3_000
	defaultDeviceDMABytesPerS = 20_000_000_000
	defaultDeviceBounceBytes  = 2 << 20
)

// Mirror is the SM mirror policy.
type Mirror string

// The mirror policies.
const (
	MirrorPerBind  Mirror = "per_bind"
	MirrorRetained Mirror = "retained"
)

// GraphPod is how Graph PODs reach the device.
type GraphPod string

// The Graph POD policies (docs/harness.md, "Graph PODs").
const (
	GraphPodCurrent          GraphPod = "current"
	GraphPodDeferredPageable GraphPod = "deferred_pageable"
	GraphPodEagerPinned      GraphPod = "eager_pinned"
)

// Epoch is the generation of log text the harness writes (docs/harness.md
// "Log generations").
type Epoch string

// The epochs.
const (
	EpochE1     Epoch = "e1"
	EpochE2     Epoch = "e2"
	EpochE3     Epoch = "e3"
	EpochPR1870 Epoch = "pr1870"
)

// Device is the device backend with the modelled device's constants.
type Device struct {
	Kind           string // "model" or "ascend"
	CallNS         int64  // one driver call
	PinNS          int64  // pinning one bounce chunk of a pageable copy
	DMABytesPerSec int64
	BounceBytes    int64 // driver bounce-buffer chunk for pageable sources
}

// DefaultDevice returns the model device with its documented constants.
func DefaultDevice() Device {
	return Device{
		Kind:           "model",
		CallNS:         defaultDeviceCallNS,
		PinNS:          defaultDevicePinNS,
		DMABytesPerSec: defaultDeviceDMABytesPerS,
		BounceBytes:    defaultDeviceBounceBytes,
	}
}

// String renders the device as its flag value: "model", or
// "model:call_ns=4000:dma_bps=1e10" when constants differ from the defaults.
func (d Device) String() string {
	var b strings.Builder
	b.WriteString(d.Kind)
	def := DefaultDevice()
	for _, p := range []struct {
		key      string
		got, def int64
	}{
		{"call_ns", d.CallNS, def.CallNS},
		{"pin_ns", d.PinNS, def.PinNS},
		{"dma_bps", d.DMABytesPerSec, def.DMABytesPerSec},
		{"bounce", d.BounceBytes, def.BounceBytes},
	} {
		if p.got != p.def {
			fmt.Fprintf(&b, ":%s=%d", p.key, p.got)
		}
	}
	return b.String()
}

// Config is one variant of the embedded runtime model: the switches of
// docs/harness.md "Switches" (the epoch and the device among them). The
// zero value is not valid;
// start from DefaultConfig.
type Config struct {
	Workload  Workload
	Mirror    Mirror
	Prewarm   int // recorder threads created at start; 0 is "ondemand"
	GraphPod  GraphPod
	DelayUS   int64
	ArgsBytes int64
	Ranks     int
	Epoch     Epoch
	Device    Device
}

// DefaultConfig returns the defaults of docs/harness.md "Switches".
func DefaultConfig() Config {
	return Config{
		Workload:  WorkloadDSV4Pair,
		Mirror:    MirrorPerBind,
		Prewarm:   defaultPrewarm,
		GraphPod:  GraphPodCurrent,
		DelayUS:   0,
		ArgsBytes: defaultArgsBytes,
		Ranks:     1,
		Epoch:     EpochE1,
		Device:    DefaultDevice(),
	}
}

// keys are the setting keys in canonical order (see Keys).
var keys = [...]string{
	"workload", "mirror", "recorders", "graph_pod", "delay_us", "args_bytes",
	"ranks", "epoch", "device",
}

// Keys returns the setting keys in canonical order. They are the names of
// the `hbgbench harness` flags with '_' for '-'. The slice is the caller's.
func Keys() []string { return append([]string(nil), keys[:]...) }

// canonicalKey maps a key as written (either '-' or '_') to its canonical
// form, or returns "" for an unknown key.
func canonicalKey(key string) string {
	k := strings.ReplaceAll(strings.TrimSpace(key), "-", "_")
	for _, c := range keys {
		if k == c {
			return c
		}
	}
	return ""
}

func oneOf[T ~string](key, value string, choices ...T) (T, error) {
	norm := strings.ReplaceAll(value, "-", "_")
	names := make([]string, len(choices))
	for i, c := range choices {
		names[i] = string(c)
		if strings.ReplaceAll(string(c), "-", "_") == norm {
			return c, nil
		}
	}
	var zero T
	return zero, &ConfigError{Key: key, Value: value,
		Reason: "want one of " + strings.Join(names, ", ")}
}

func intIn(key, value string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err != nil {
		return 0, &ConfigError{Key: key, Value: value, Reason: "want an integer"}
	}
	if n < lo || n > hi {
		return 0, &ConfigError{Key: key, Value: value,
			Reason: fmt.Sprintf("want %d to %d", lo, hi)}
	}
	return n, nil
}

// parseBytes reads a byte count: digits, optionally followed by KiB, MiB
// or GiB.
func parseBytes(key, value string, hi int64) (int64, error) {
	v := strings.TrimSpace(value)
	mult := int64(1)
	for _, s := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if strings.HasSuffix(v, s.suffix) {
			v, mult = strings.TrimSuffix(v, s.suffix), s.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, &ConfigError{Key: key, Value: value,
			Reason: "want a byte count such as 4194304 or 4MiB"}
	}
	if n < 0 || n > hi/mult {
		return 0, &ConfigError{Key: key, Value: value,
			Reason: fmt.Sprintf("want 0 to %d bytes", hi)}
	}
	return n * mult, nil
}

func parseDevice(value string) (Device, error) {
	parts := strings.Split(value, ":")
	d := DefaultDevice()
	kind, err := oneOf("device", parts[0], "model", "ascend")
	if err != nil {
		return d, err
	}
	d.Kind = kind
	if kind != "model" && len(parts) > 1 {
		return d, &ConfigError{Key: "device", Value: value,
			Reason: "constants apply to the model device only"}
	}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return d, &ConfigError{Key: "device", Value: value,
				Reason: fmt.Sprintf("%q: want key=value", p)}
		}
		var dst *int64
		lo, hi := int64(0), int64(1_000_000_000)
		switch k {
		case "call_ns":
			dst = &d.CallNS
		case "pin_ns":
			dst = &d.PinNS
		case "dma_bps":
			dst, lo, hi = &d.DMABytesPerSec, 1, 1<<50
		case "bounce":
			dst, lo, hi = &d.BounceBytes, 4096, 1<<30
		default:
			return d, &ConfigError{Key: "device", Value: value,
				Reason: fmt.Sprintf("unknown constant %q (want call_ns, pin_ns, dma_bps, bounce)", k)}
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f != float64(int64(f)) || int64(f) < lo || int64(f) > hi {
			return d, &ConfigError{Key: "device", Value: value,
				Reason: fmt.Sprintf("%s=%s: want an integer from %d to %d", k, v, lo, hi)}
		}
		*dst = int64(f)
	}
	return d, nil
}

// Set applies one setting, as a flag or an arm-spec key would. Nonsense
// values are refused with a *ConfigError.
func (c *Config) Set(key, value string) error {
	k := canonicalKey(key)
	switch k {
	case "workload":
		w, err := oneOf(k, value, WorkloadDSV4Pair, WorkloadQwen3Decode, WorkloadDSV4Blocks7)
		if err != nil {
			return err
		}
		c.Workload = w
	case "mirror":
		m, err := oneOf(k, value, MirrorPerBind, MirrorRetained)
		if err != nil {
			return err
		}
		c.Mirror = m
	case "recorders":
		v := strings.TrimSpace(value)
		if v == "ondemand" {
			c.Prewarm = 0
			return nil
		}
		n, ok := strings.CutPrefix(v, "prewarm=")
		if !ok {
			return &ConfigError{Key: k, Value: value, Reason: "want prewarm=N or ondemand"}
		}
		p, err := intIn(k, n, 0, maxPrewarm)
		if err != nil {
			return &ConfigError{Key: k, Value: value,
				Reason: fmt.Sprintf("want prewarm=N with N from 0 to %d, or ondemand", maxPrewarm)}
		}
		c.Prewarm = int(p)
	case "graph_pod":
		g, err := oneOf(k, value, GraphPodCurrent, GraphPodDeferredPageable, GraphPodEagerPinned)
		if err != nil {
			return err
		}
		c.GraphPod = g
	case "delay_us":
		n, err := intIn(k, value, 0, maxDelayUS)
		if err != nil {
			return err
		}
		c.DelayUS = n
	case "args_bytes":
		n, err := parseBytes(k, value, maxArgsBytes)
		if err != nil {
			return err
		}
		c.ArgsBytes = n
	case "ranks":
		n, err := intIn(k, value, 1, 2)
		if err != nil {
			return err
		}
		c.Ranks = int(n)
	case "epoch":
		e, err := oneOf(k, value, EpochE1, EpochE2, EpochE3, EpochPR1870)
		if err != nil {
			return err
		}
		c.Epoch = e
	case "device":
		d, err := parseDevice(value)
		if err != nil {
			return err
		}
		c.Device = d
	default:
		return &ConfigError{Key: key, Value: value,
			Reason: "unknown key (want one of " + strings.Join(keys[:], ", ") + ")"}
	}
	return nil
}

// Get returns the canonical text of one setting.
func (c Config) Get(key string) string {
	switch canonicalKey(key) {
	case "workload":
		return string(c.Workload)
	case "mirror":
		return string(c.Mirror)
	case "recorders":
		return "prewarm=" + strconv.Itoa(c.Prewarm)
	case "graph_pod":
		return string(c.GraphPod)
	case "delay_us":
		return strconv.FormatInt(c.DelayUS, 10)
	case "args_bytes":
		return strconv.FormatInt(c.ArgsBytes, 10)
	case "ranks":
		return strconv.Itoa(c.Ranks)
	case "epoch":
		return string(c.Epoch)
	case "device":
		return c.Device.String()
	}
	return ""
}

// Validate refuses a config that cannot run, with a *ConfigError: a
// nonsense value, or the ascend device without its library.
func (c Config) Validate() error {
	// Re-apply every setting to a copy: Set is the one place that knows
	// what a valid value is.
	probe := DefaultConfig()
	for _, k := range keys {
		if err := probe.Set(k, c.Get(k)); err != nil {
			return err
		}
	}
	if probe != c {
		return &ConfigError{Key: "config", Value: c.Spec(), Reason: "does not round-trip"}
	}
	if c.Device.Kind == "ascend" {
		return checkAscend()
	}
	return nil
}

// checkAscend refuses the ascend backend before any work when its library
// cannot be there.
func checkAscend() error {
	lib := ascendLibrary()
	if lib == "" {
		return &ConfigError{Key: "device", Value: "ascend",
			Reason: AscendHomeEnv + " is not set (it names the CANN install whose lib64/libascendcl.so is loaded)"}
	}
	if _, err := os.Stat(lib); err != nil {
		return &ConfigError{Key: "device", Value: "ascend",
			Reason: fmt.Sprintf("no %s (from %s): %v", lib, AscendHomeEnv, errors.Unwrap(err))}
	}
	return nil
}

// specPrefix starts every embedded arm spec.
const specPrefix = "embedded:"

// Spec renders the config as its canonical arm spec, every key present:
// embedded:workload=dsv4-pair,mirror=per_bind,recorders=prewarm=8,...
func (c Config) Spec() string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + c.Get(k)
	}
	return specPrefix + strings.Join(parts, ",")
}

// ParseArmSpec reads an embedded arm spec such as
// "embedded:workload=dsv4-pair,mirror=retained". Keys are those of Set
// ('-' and '_' interchangeable); missing keys keep their defaults; an
// unknown or repeated key is an error.
func ParseArmSpec(spec string) (Config, error) {
	c := DefaultConfig()
	body, ok := strings.CutPrefix(strings.TrimSpace(spec), specPrefix)
	if !ok {
		return c, fmt.Errorf("arm spec %q: want embedded:key=value[,key=value]", spec)
	}
	seen := map[string]bool{}
	if strings.TrimSpace(body) == "" {
		return c, nil
	}
	for _, tok := range strings.Split(body, ",") {
		key, value, ok := strings.Cut(tok, "=")
		if !ok {
			return c, fmt.Errorf("arm spec %q: %q: want key=value", spec, tok)
		}
		k := canonicalKey(key)
		if k != "" && seen[k] {
			return c, fmt.Errorf("arm spec %q: %s given twice", spec, k)
		}
		seen[k] = true
		if err := c.Set(key, value); err != nil {
			return c, fmt.Errorf("arm spec %q: %w", spec, err)
		}
	}
	return c, nil
}
