package recorder

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"time"

	"github.com/rote-agent/rote/schema"
)

// MaxRecordedLine is the longest line the recorder keeps for parsing. A
// longer line is still forwarded byte for byte, but only its digest and
// size are recorded.
const MaxRecordedLine = 64 << 20

// forward copies newline-delimited frames from src to dst unchanged, and
// hands a copy of each frame to q. It writes as bytes arrive (a long line
// is not held back until its newline). A complete frame is queued just
// before its last bytes are written: queueing is a non-blocking append,
// and it guarantees the recorder sees a request before any response to it
// can exist. Recording itself happens later on another goroutine, so it
// never delays forwarding. It returns nil at the end of src, or the first
// read or write error.
func forward(src io.Reader, dst io.Writer, dir schema.Direction, q *queue) error {
	br := bufio.NewReaderSize(src, 64<<10)
	var line []byte
	var hasher hash.Hash // set once a line outgrows MaxRecordedLine
	size := 0
	flush := func(at time.Time) {
		if size == 0 {
			return
		}
		o := observation{dir: dir, at: at, line: line, size: size}
		if hasher != nil {
			o.line, o.digest = nil, "sha256:"+hex.EncodeToString(hasher.Sum(nil))
		}
		q.push(o)
		line, hasher, size = nil, nil, 0
	}
	for {
		chunk, err := br.ReadSlice('\n')
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
		if err == nil || errors.Is(err, io.EOF) {
			flush(at) // a whole frame, or a final one without a newline
		}
		if len(chunk) > 0 {
			if _, werr := dst.Write(chunk); werr != nil {
				return werr
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return nil
		default:
			return err
		}
	}
}
