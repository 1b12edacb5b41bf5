package recorder

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/vmihailenco/msgpack/v5"
)

// A spool holds, on local disk, what could not be written to the bus:
// blobs and events, in the order they were produced. Each record is
// appended and fsynced before the recorder goes on, and flushed to the bus
// in the same order when it is reachable again. A flushed prefix is
// tracked in an offset file, so a flush that dies half-way resumes where
// it stopped; the one record in flight at that moment may be published
// twice, which the bus deduplicates by event id within its window.
type spool struct {
	path string // <dir>/<run>.spool
	f    *os.File
	size int64
}

type spoolRecord struct {
	Blob bool   `msgpack:"blob,omitempty"` // a blob (Name = digest) rather than an event (Name = type)
	Name string `msgpack:"name"`
	Data []byte `msgpack:"data"`
}

// frame header: 4-byte big-endian length, 4-byte CRC-32 (IEEE) of the body.
const frameHeader = 8

func spoolPath(dir, runID string) string { return filepath.Join(dir, runID+".spool") }

func openSpool(dir, runID string) (*spool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recorder: spool: %w", err)
	}
	path := spoolPath(dir, runID)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("recorder: spool: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("recorder: spool: %w", err)
	}
	return &spool{path: path, f: f, size: st.Size()}, nil
}

// append writes rec durably: it returns only after fsync.
func (s *spool) append(rec spoolRecord) error {
	body, err := msgpack.Marshal(rec)
	if err != nil {
		return fmt.Errorf("recorder: spool: %w", err)
	}
	frame := make([]byte, frameHeader, frameHeader+len(body))
	binary.BigEndian.PutUint32(frame[0:4], uint32(len(body)))
	binary.BigEndian.PutUint32(frame[4:8], crc32.ChecksumIEEE(body))
	frame = append(frame, body...)
	if _, err := s.f.Write(frame); err != nil {
		return fmt.Errorf("recorder: spool: %w", err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("recorder: spool: %w", err)
	}
	s.size += int64(len(frame))
	return nil
}

func (s *spool) close() error { return s.f.Close() }

// flushSpool publishes the unflushed records of the spool file at path,
// in order, and removes the file (and its offset file) when every record
// is on the bus. A torn final frame, left by a crash during append, was
// never acknowledged to anyone and is dropped. It returns how many records
// it published.
func flushSpool(ctx context.Context, runs *bus.RunLog, path string) (int, error) {
	offPath := path + ".offset"
	offset, err := readOffset(offPath)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		os.Remove(offPath)
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("recorder: spool: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return 0, fmt.Errorf("recorder: spool: %w", err)
	}
	r := bufio.NewReader(f)
	n := 0
	for {
		rec, size, err := readFrame(r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, fmt.Errorf("recorder: spool %s at offset %d: %w", path, offset, err)
		}
		if err := publishRecord(ctx, runs, rec); err != nil {
			return n, err
		}
		n++
		offset += size
		if err := writeOffset(offPath, offset); err != nil {
			return n, err
		}
	}
	f.Close()
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return n, fmt.Errorf("recorder: spool: %w", err)
	}
	os.Remove(offPath)
	return n, nil
}

// readFrame returns the next record and its size on disk. A partial or
// corrupt final frame reads as io.EOF.
func readFrame(r *bufio.Reader) (spoolRecord, int64, error) {
	var hdr [frameHeader]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return spoolRecord{}, 0, io.EOF // nothing, or a torn header
	}
	body := make([]byte, binary.BigEndian.Uint32(hdr[0:4]))
	if _, err := io.ReadFull(r, body); err != nil {
		return spoolRecord{}, 0, io.EOF // a torn body
	}
	if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(hdr[4:8]) {
		if _, err := r.Peek(1); errors.Is(err, io.EOF) {
			return spoolRecord{}, 0, io.EOF // a torn final frame
		}
		return spoolRecord{}, 0, errors.New("corrupt frame in the middle of the spool")
	}
	var rec spoolRecord
	if err := schema.DecodeMsgpack(body, &rec); err != nil {
		return spoolRecord{}, 0, fmt.Errorf("undecodable frame: %w", err)
	}
	return rec, int64(frameHeader + len(body)), nil
}

func publishRecord(ctx context.Context, runs *bus.RunLog, rec spoolRecord) error {
	if rec.Blob {
		return runs.PutBlob(ctx, schema.Blob{Digest: rec.Name, Data: rec.Data})
	}
	ev, err := schema.Unmarshal(rec.Name, rec.Data)
	if err != nil {
		return fmt.Errorf("recorder: spooled event: %w", err)
	}
	_, err = runs.Publish(ctx, ev)
	return err
}

func readOffset(path string) (int64, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("recorder: spool offset: %w", err)
	}
	off, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("recorder: spool offset %s: %w", path, err)
	}
	return off, nil
}

func writeOffset(path string, off int64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("recorder: spool offset: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString(strconv.FormatInt(off, 10)); err != nil {
		return fmt.Errorf("recorder: spool offset: %w", err)
	}
	return f.Sync()
}
