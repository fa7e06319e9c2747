package trace

import "sync"

// A chunk is one block of whole lines on its way through a pipeline: read
// by the producer, parsed by a worker into its batch, yielded by the
// Reader, then recycled.
type chunk struct {
	buf   []byte // owned by the chunk, reused
	data  []byte // the lines, in buf
	src   int
	final bool
	first bool  // data starts its source
	err   error // ends the stream; the chunk then has no lines
	b     batch
	done  chan struct{} // receives once the batch is parsed
}

// A pipeline reads a stream ahead on one goroutine, cuts it into chunks and
// parses them on several, and hands them to the Reader in input order.
// The number of chunks is fixed, so memory stays bounded however long the
// input: the producer waits for a chunk the Reader has finished with.
type pipeline struct {
	free    chan *chunk // chunks to fill
	work    chan *chunk // chunks to parse
	ordered chan *chunk // filled chunks in input order
	quit    chan struct{}
	once    sync.Once
	feed    *feeder
	workers sync.WaitGroup
}

// startPipeline starts the producer and workers parsers over srcs.
func startPipeline(srcs []Source, cfg readConfig, workers int) *pipeline {
	n := 2*workers + 2
	p := &pipeline{
		free:    make(chan *chunk, n),
		work:    make(chan *chunk, n),
		ordered: make(chan *chunk, n),
		quit:    make(chan struct{}),
	}
	for i := 0; i < n; i++ {
		p.free <- &chunk{done: make(chan struct{}, 1)}
	}
	p.feed = &feeder{srcs: srcs, size: cfg.chunk, maxLine: cfg.maxLine}
	go p.produce(srcs)
	p.workers.Add(workers)
	for i := 0; i < workers; i++ {
		go p.parse(newParser(cfg))
	}
	return p
}

// produce fills chunks from the sources until the end, an error or quit.
// Every channel it sends on has room for every chunk, so only waiting for
// a free chunk blocks.
func (p *pipeline) produce(srcs []Source) {
	defer close(p.work)
	defer close(p.ordered)
	f := p.feed
	defer f.closeSrc()
	for {
		var c *chunk
		select {
		case c = <-p.free:
		case <-p.quit:
			return
		}
		fc, buf, ok := f.next(c.buf)
		c.buf = buf
		if !ok {
			return
		}
		c.data, c.src, c.final, c.first, c.err = fc.data, fc.src, fc.final, fc.first, fc.err
		if c.err == nil {
			c.b.reset(srcs[c.src].Name, c.src)
		}
		p.ordered <- c
		if c.err != nil {
			c.done <- struct{}{}
			return
		}
		p.work <- c
	}
}

// parse parses chunks until there are no more or quit.
func (p *pipeline) parse(ps *parser) {
	defer p.workers.Done()
	for {
		select {
		case c, ok := <-p.work:
			if !ok {
				return
			}
			ps.parseChunk(c.data, c.final, c.first, &c.b)
			c.done <- struct{}{}
		case <-p.quit:
			return
		}
	}
}

// next returns the next chunk in input order once it is parsed; false at
// the end of the stream.
func (p *pipeline) next() (*chunk, bool) {
	c, ok := <-p.ordered
	if !ok {
		return nil, false
	}
	<-c.done
	return c, true
}

// recycle gives a chunk the Reader has finished with back to the producer.
// A buffer grown for a long line is dropped rather than kept.
func (p *pipeline) recycle(c *chunk) {
	if cap(c.buf) > 2*chunkSize {
		c.buf = nil
	}
	c.data = nil
	p.free <- c
}

// stop makes the goroutines end, the producer at its next chunk (a read in
// progress finishes first), and waits for the workers to finish the chunk
// they are parsing.
func (p *pipeline) stop() {
	p.once.Do(func() {
		close(p.quit)
		p.workers.Wait()
	})
}
