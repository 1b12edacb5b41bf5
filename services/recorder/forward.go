package recorder

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"sync"
	"time"

	"github.com/rote-agent/rote/schema"
)

// MaxRecordedLine is the longest line the recorder keeps for parsing. A
// longer line is still forwarded byte for byte, but only its digest and
// size are recorded.
const MaxRecordedLine = 64 << 20

// maxHeldFrame is the longest frame a filter sees: a longer one is
// forwarded as it arrives, unfiltered.
const maxHeldFrame = 8 << 20

// frameWriter is one side's output, shared by the forwarder and the
// interceptor's own messages: a frame is written whole, never interleaved
// with another.
type frameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (f *frameWriter) writeFrame(b []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, err := f.w.Write(b)
	return err
}

// A filter decides about one whole frame before it is forwarded: what to
// write in its place (nil for nothing) and whether to record the frame as
// it came.
type filter func(frame []byte) (out []byte, record bool)

// forward copies newline-delimited frames from src to dst unchanged, and
// hands a copy of each frame to q. It writes as bytes arrive (a long line
// is not held back until its newline), unless a filter is given: then a
// frame up to maxHeldFrame is held until it is whole and goes through the
// filter. A complete frame is queued just before its last bytes are
// written: queueing is a non-blocking append, and it guarantees the
// recorder sees a request before any response to it can exist. Recording
// itself happens later on another goroutine, so it never delays
// forwarding. It returns nil at the end of src, or the first read or
// write error.
func forward(src io.Reader, dst *frameWriter, dir schema.Direction, q *queue, filt filter) (err error) {
	br := bufio.NewReaderSize(src, 64<<10)
	var line []byte
	var hasher hash.Hash // set once a line outgrows MaxRecordedLine
	size := 0
	streaming := false // dst is held for a frame written as it arrives
	defer func() {
		if streaming {
			dst.mu.Unlock()
		}
	}()
	reset := func() { line, hasher, size = nil, nil, 0 }
	record := func(at time.Time) {
		if size == 0 {
			return
		}
		o := observation{dir: dir, at: at, line: line, size: size}
		if hasher != nil {
			o.line, o.digest = nil, "sha256:"+hex.EncodeToString(hasher.Sum(nil))
		}
		q.push(o)
		reset()
	}
	for {
		chunk, rerr := br.ReadSlice('\n')
		at := time.Now()
		if len(chunk) > 0 {
			size += len(chunk)
			switch {
			case hasher != nil:
				hasher.Write(chunk)
			case size > MaxRecordedLine:
				hasher = sha256.New()
				hasher.Write(line)
				hasher.Write(chunk)
				line = nil
			default:
				line = append(line, chunk...)
			}
		}
		end := rerr == nil || errors.Is(rerr, io.EOF) // a whole frame, or a final one without a newline
		switch {
		case filt != nil && !streaming && size <= maxHeldFrame:
			if end && size > 0 {
				out, keep := filt(line)
				if keep {
					record(at)
				} else {
					reset()
				}
				if len(out) > 0 {
					if werr := dst.writeFrame(out); werr != nil {
						return werr
					}
				}
			}
		default:
			if !streaming && len(chunk) > 0 {
				dst.mu.Lock()
				streaming = true
				if filt != nil { // what was held of this frame
					if _, werr := dst.w.Write(line[:len(line)-len(chunk)]); werr != nil {
						return werr
					}
				}
			}
			if end {
				record(at)
			}
			if len(chunk) > 0 {
				if _, werr := dst.w.Write(chunk); werr != nil {
					return werr
				}
			}
			if end && streaming {
				dst.mu.Unlock()
				streaming = false
			}
		}
		switch {
		case rerr == nil, errors.Is(rerr, bufio.ErrBufferFull):
		case errors.Is(rerr, io.EOF):
			return nil
		default:
			return rerr
		}
	}
}
