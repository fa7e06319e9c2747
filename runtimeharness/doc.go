// Package runtimeharness runs the runtime: the Runner interface, an
// external-command runner for real simpler runs (process groups, timeouts,
// log capture), and an embedded cgo model of the host_build_graph bind path
// that does the host work of one bind for real, at realistic sizes, and
// writes the runtime's exact log text.
//
// Its opinion: only the device may be modelled. Every attribute the model
// writes is the truth about what it did (bytes it copied, tasks it
// submitted), every segment with modelled device time says dev=model, and
// counters are read from the kernel, never estimated. The model runs in a
// child process so that each block gets a fresh address space and the Go
// runtime's own threads do not pollute the counters.
//
// cgo stays inside this package: RunModel is the one Go function that
// reaches the C model, and no exported type is a C type.
package runtimeharness
