// Package swimlane turns a parsed simpler host log into Chrome trace
// documents that Perfetto and chrome://tracing open: the per-invocation
// trace of strace_timing's --trace-out, and the host swimlane of its
// --swimlane, where every real (pid, tid) is a lane, overlapping pipeline
// slots of one thread are split into lanes of their own, submit→dispatch
// handoffs are flow arrows, and the prepare-path detail of a
// host_phase_records.jsonl artifact (or, failing that, of `bind phase=`
// lines) is drawn under the bind it belongs to.
//
// Its opinion: the picture must be the reference's, JSON for JSON, and it
// must be written for logs of any size. Documents are written by hand in the
// reference's key order and streamed to the writer; nothing holds a second
// copy of the document, and a log with nothing to draw still gives a valid
// document.
package swimlane
