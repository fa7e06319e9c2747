package runtimeharness

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// HostFacts are the facts about the machine that change what the model
// measures, printed in every harness [stamp].
type HostFacts struct {
	NProc int    // CPUs this process may run on
	THP   string // transparent huge pages mode: always, madvise, never, unknown
	Glibc string // glibc version, "unknown" without cgo
	// CPUs is the CPU list a pinned block runs on (BlockSpec.CPUs), ""
	// when it is not pinned.
	CPUs string
	// Load is the background load beside the block as the stamp names
	// it (BlockSpec.Load), "" for none.
	Load string
}

// Host reads the facts of this machine.
func Host() HostFacts {
	return HostFacts{NProc: runtime.NumCPU(), THP: thpMode(), Glibc: glibcVersion()}
}

const thpPath = "/sys/kernel/mm/transparent_hugepage/enabled"

// thpMode returns the bracketed choice of the THP setting, e.g. "madvise"
// from "always [madvise] never".
func thpMode() string {
	b, err := os.ReadFile(thpPath)
	if err != nil {
		return "unknown"
	}
	return parseTHP(string(b))
}

func parseTHP(s string) string {
	i := strings.IndexByte(s, '[')
	j := strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return "unknown"
	}
	return s[i+1 : j]
}

// Stamp returns the text of the [stamp] line the harness writes first
// (without the "[stamp] " prefix): the harness, the variant's arm spec, the
// rounds, the host facts (cpus= for a pinned block, the load beside it)
// and the device, with the model device's constants.
func Stamp(c Config, rounds int, h HostFacts) string {
	d := c.Device
	s := fmt.Sprintf("hbgkit-harness %s rounds=%d nproc=%d", c.Spec(), rounds, h.NProc)
	if h.CPUs != "" {
		s += " cpus=" + h.CPUs
	}
	if h.Load != "" {
		s += " " + h.Load
	}
	s += fmt.Sprintf(" thp=%s glibc=%s dev=%s", h.THP, h.Glibc, d.Kind)
	if d.Kind != "model" {
		return s // a real device: no modelled constants apply
	}
	return s + fmt.Sprintf(" call_ns=%d pin_ns=%d dma_bps=%d bounce=%d",
		d.CallNS, d.PinNS, d.DMABytesPerSec, d.BounceBytes)
}
