package journal

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/hbgkit/hbgkit/runtimeharness"
)

// Env is what the journal records about the host a campaign ran on.
// The Must fields must be equal for a campaign to resume
// (docs/ab-reference.md "The journal and resuming"); the rest is recorded,
// not required.
type Env struct {
	Host      string `json:"host"`
	CPUModel  string `json:"cpu_model"`
	NCPU      int    `json:"ncpu"`
	Kernel    string `json:"kernel"`
	Governor  string `json:"governor"`
	Toolchain string `json:"toolchain"` // the Go toolchain that built hbgbench
	Build     string `json:"build"`     // the arms' build command, "" when none

	LoadAvg     string `json:"loadavg"`      // /proc/loadavg's first three fields
	CPUPressure string `json:"cpu_pressure"` // /proc/pressure/cpu "some" line
	Boost       string `json:"boost"`        // "on", "off" or "unknown"
	SMT         string `json:"smt"`          // "on", "off" or "unknown"
	THP         string `json:"thp"`          // transparent huge pages mode
}

// readFirstLine returns the first line of a file, trimmed, or "".
func readFirstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// ReadEnv reads the facts of this host from /proc and /sys; what cannot
// be read is "unknown".
func ReadEnv() Env {
	e := Env{NCPU: runtime.NumCPU(), Toolchain: runtime.Version()}
	e.Host, _ = os.Hostname()
	e.CPUModel = cpuModel()
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		e.Kernel = utsString(u.Release[:])
	}
	e.Governor = orUnknown(readFirstLine("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"))
	if f := strings.Fields(readFirstLine("/proc/loadavg")); len(f) >= 3 {
		e.LoadAvg = strings.Join(f[:3], " ")
	}
	e.CPUPressure = orUnknown(readFirstLine("/proc/pressure/cpu"))
	e.Boost = boost()
	e.SMT = onOff(readFirstLine("/sys/devices/system/cpu/smt/active"), "1")
	e.THP = runtimeharness.Host().THP
	return e
}

func utsString(b []int8) string {
	var s strings.Builder
	for _, c := range b {
		if c == 0 {
			break
		}
		s.WriteByte(byte(c))
	}
	return s.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func onOff(v, on string) string {
	switch v {
	case "":
		return "unknown"
	case on:
		return "on"
	}
	return "off"
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// boost reads the cpufreq boost switch, or intel_pstate's no_turbo.
func boost() string {
	if v := readFirstLine("/sys/devices/system/cpu/cpufreq/boost"); v != "" {
		return onOff(v, "1")
	}
	if v := readFirstLine("/sys/devices/system/cpu/intel_pstate/no_turbo"); v != "" {
		return onOff(v, "0")
	}
	return "unknown"
}

// MustMatch compares the fields a resumed campaign requires to be equal
// and returns one line per difference, "" when they all match.
func (e Env) MustMatch(now Env) []string {
	var out []string
	check := func(name, was, is string) {
		if was != is {
			out = append(out, fmt.Sprintf("%s: journal %q, now %q", name, was, is))
		}
	}
	check("host", e.Host, now.Host)
	check("cpu model", e.CPUModel, now.CPUModel)
	check("cpu count", strconv.Itoa(e.NCPU), strconv.Itoa(now.NCPU))
	check("kernel", e.Kernel, now.Kernel)
	check("governor", e.Governor, now.Governor)
	check("toolchain", e.Toolchain, now.Toolchain)
	check("build command", e.Build, now.Build)
	return out
}

// Preflight returns the noise warnings of this host: what makes timings
// wander (a power-saving governor, turbo boost, SMT siblings, a loaded
// machine, CPU pressure). They warn and never block: a laptop or a CI VM
// can still run a campaign, and the noise footer shows what it cost.
func (e Env) Preflight() []string {
	var w []string
	switch e.Governor {
	case "performance", "unknown", "":
	default:
		w = append(w, fmt.Sprintf("cpufreq governor is %q, not \"performance\": frequency changes add noise", e.Governor))
	}
	if e.Boost == "on" {
		w = append(w, "turbo/boost is on: the clock follows temperature and load")
	}
	if e.SMT == "on" {
		w = append(w, "SMT is on: a sibling hyperthread shares the core with the arm under test")
	}
	if f := strings.Fields(e.LoadAvg); len(f) > 0 {
		if l, err := strconv.ParseFloat(f[0], 64); err == nil && Loaded(l, e.NCPU) {
			w = append(w, fmt.Sprintf("load average %.2f on %d CPUs: other work competes with the arms", l, e.NCPU))
		}
	}
	if p := pressureAvg10(e.CPUPressure); p > PressureLimit {
		w = append(w, fmt.Sprintf("CPU pressure %.1f%% (some avg10): tasks are waiting for a CPU", p))
	}
	return w
}

// pressureAvg10 reads avg10 from a PSI "some avg10=1.23 avg60=..." line,
// 0 when absent.
func pressureAvg10(line string) float64 {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "avg10="); ok {
			x, err := strconv.ParseFloat(v, 64)
			if err == nil {
				return x
			}
		}
	}
	return 0
}

// A Load is the machine's load when a round closed: the 1-minute load
// average and the CPU pressure (some avg10, in percent); 0 when unknown.
type Load struct {
	Avg1     float64 `json:"load1"`
	Pressure float64 `json:"cpu_pressure,omitempty"`
}

// ReadLoad returns the load now.
func ReadLoad() Load {
	var l Load
	if f := strings.Fields(readFirstLine("/proc/loadavg")); len(f) > 0 {
		l.Avg1, _ = strconv.ParseFloat(f[0], 64)
	}
	l.Pressure = pressureAvg10(readFirstLine("/proc/pressure/cpu"))
	return l
}

// PressureLimit is the CPU pressure (some avg10, percent) above which
// tasks wait for a CPU often enough to add noise.
const PressureLimit = 5

// Loaded reports whether a load average competes with the arms on ncpu
// CPUs, by Preflight's rule: above half the CPUs.
func Loaded(load1 float64, ncpu int) bool { return load1 > 0.5*float64(ncpu) }
