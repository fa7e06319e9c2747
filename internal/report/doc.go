// Package report writes hbgtrace's views. The reference views, whose text
// layouts are fixed byte for byte by the tools they port, are named
// writers: WriteRounds and WriteRoundsText (strace_timing --rounds-table,
// with the HBG share blocks), WriteTPOT, WriteTree, WriteBindPhases
// (hbg_bind_phases), WriteGaps and WriteOverlap; the other formats are
// internal/document documents. Commands compute with phases and hand the
// result to a writer; only this package decides the bytes of a view.
package report
