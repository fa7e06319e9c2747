// Command hbgtrace reads simpler host logs: per-round and per-callable
// timing tables, bind-phase breakdowns, HBG bind accounting, Chrome traces
// and host swimlanes. It is a Go port of simpler's strace_timing.py and
// hbg_bind_phases.py, byte-compatible with them where they are right.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
