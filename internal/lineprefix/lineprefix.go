// Package lineprefix puts a program's name before the lines a library
// package writes. Libraries write their warnings without it ("round 3
// dropped: …"), and the command adds it once, where it hands the library
// its stderr ("hbgbench: round 3 dropped: …"), as an error's message gets
// the program's name only in main.
package lineprefix

import (
	"bytes"

	"github.com/hbgkit/hbgkit/internal/termsafe"
	"io"
	"sync"
)

// A Writer writes each line written to it to the writer beneath with the
// prefix in front, unless the line continues the message above it: a line
// that starts with a space or a tab (a block's indented log tail, the
// items of a list) or is empty is written as it is. It holds an
// unterminated line until its newline arrives or Flush, so a message
// written in pieces gets one prefix; the complete lines of one Write reach
// the writer beneath in one Write. A Writer is safe for concurrent use.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	prefix []byte
	line   []byte // the unterminated line held
	out    []byte // reused for what one Write passes on
}

// New returns a Writer that writes to w with prefix before each line.
func New(w io.Writer, prefix string) *Writer {
	return &Writer{w: w, prefix: []byte(prefix)}
}

// Write writes the complete lines of p, prefixed, and holds the rest.
func (p *Writer) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(b)
	p.out = p.out[:0]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.line = append(p.line, b...)
			break
		}
		p.line = append(p.line, b[:i+1]...)
		p.out = p.appendLine(p.out, p.line)
		p.line = p.line[:0]
		b = b[i+1:]
	}
	if len(p.out) == 0 {
		return n, nil
	}
	if _, err := p.w.Write(p.out); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush writes the line held, prefixed and without a newline, if any.
func (p *Writer) Flush() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.line) == 0 {
		return nil
	}
	out := p.appendLine(nil, p.line)
	p.line = p.line[:0]
	_, err := p.w.Write(out)
	return err
}

// Close flushes the line held; it does not close the writer beneath.
func (p *Writer) Close() error { return p.Flush() }

// appendLine appends line to dst, with the prefix unless it continues a
// message (it starts with a space or a tab) or is empty, and with what a
// terminal would act on escaped (termsafe): the lines come from recipes,
// commands and logs.
func (p *Writer) appendLine(dst, line []byte) []byte {
	switch line[0] {
	case ' ', '\t', '\n':
	default:
		dst = append(dst, p.prefix...)
	}
	return append(dst, termsafe.Escape(string(line))...)
}
