package recorder

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Opener opens (or reopens) the bus. The recorder calls it at start and
// again whenever the bus it had stopped answering.
type Opener func(ctx context.Context) (*bus.Bus, error)

// publishTimeout bounds one publish; past it the bus counts as unreachable.
const publishTimeout = 5 * time.Second

// writer turns session records into stored events. It numbers them, moves
// payloads over schema.InlineLimit to the blob store, and publishes each
// synchronously: an event is acknowledged by JetStream, or fsynced to the
// local spool, before the next sequence number is assigned. While the bus
// is unreachable, events go to the spool in order, and a background
// flusher delivers the spool once the bus answers again; events produced
// meanwhile join the spool behind it, so order is never broken.
type writer struct {
	runID    string
	spoolDir string
	open     Opener
	log      *slog.Logger

	mu       sync.Mutex
	seq      uint64
	bus      *bus.Bus // nil while unreachable
	spool    *spool   // non-nil while records wait on disk
	flushing bool
	stop     chan struct{}
	done     sync.WaitGroup
}

func newWriter(runID, spoolDir string, b *bus.Bus, open Opener, log *slog.Logger) *writer {
	return &writer{runID: runID, spoolDir: spoolDir, bus: b, open: open, log: log, stop: make(chan struct{})}
}

// write numbers ev and stores it. The error is an invalid event (a bug,
// reported and never spooled) or a spool that cannot be written.
func (w *writer) write(ctx context.Context, ev schema.Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	blobs := w.number(ev)
	if err := ev.Validate(); err != nil {
		return err
	}
	if w.spool == nil && w.bus != nil {
		err := w.deliver(ctx, blobs, ev)
		if err == nil {
			return nil
		}
		if errors.Is(err, schema.ErrInvalid) || errors.Is(err, bus.ErrTooLarge) {
			return err
		}
		w.disconnect(err)
	}
	return w.toSpool(blobs, ev)
}

// number gives ev its run id, sequence number and event id, and moves
// large payloads out of it; it returns those payloads as blob records.
func (w *writer) number(ev schema.Event) []spoolRecord {
	next := func() (uint64, string) {
		w.seq++
		return w.seq, fmt.Sprintf("%s-%d", w.runID, w.seq)
	}
	switch e := ev.(type) {
	case *schema.ToolCall:
		e.RunID = w.runID
		e.Seq, e.ID = next()
	case *schema.Unparsed:
		e.RunID = w.runID
		e.Seq, e.ID = next()
	case *schema.Inventory:
		e.RunID = w.runID
		e.Seq, e.ID = next()
	}
	var blobs []spoolRecord
	for _, b := range schema.Spill(ev) {
		blobs = append(blobs, spoolRecord{Blob: true, Name: b.Digest, Data: b.Data})
	}
	return blobs
}

// errDisconnected means the bus connection is down (it may be
// reconnecting): publishing now would only wait for a timeout.
var errDisconnected = errors.New("recorder: bus connection is down")

func (w *writer) deliver(ctx context.Context, blobs []spoolRecord, ev schema.Event) error {
	if !w.bus.Connected() {
		return errDisconnected
	}
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	for _, b := range blobs {
		if err := w.bus.Runs().PutBlob(ctx, schema.Blob{Digest: b.Name, Data: b.Data}); err != nil {
			return err
		}
	}
	_, err := w.bus.Runs().Publish(ctx, ev)
	return err
}

// disconnect drops a bus that failed; the flusher opens a new one.
func (w *writer) disconnect(cause error) {
	w.log.Warn("bus unreachable; spooling", "err", cause, "spool", spoolPath(w.spoolDir, w.runID))
	go w.bus.Close() // draining a dead connection must not hold up recording
	w.bus = nil
}

func (w *writer) toSpool(blobs []spoolRecord, ev schema.Event) error {
	if w.spool == nil {
		sp, err := openSpool(w.spoolDir, w.runID)
		if err != nil {
			return err
		}
		w.spool = sp
	}
	data, err := schema.Marshal(ev)
	if err != nil {
		return err
	}
	for _, b := range blobs {
		if err := w.spool.append(b); err != nil {
			return err
		}
	}
	if err := w.spool.append(spoolRecord{Name: ev.EventType(), Data: data}); err != nil {
		return err
	}
	if !w.flushing {
		w.flushing = true
		w.done.Add(1)
		go w.flushLoop()
	}
	return nil
}

// flushLoop retries, with backoff, until the spool is on the bus or the
// writer closes.
func (w *writer) flushLoop() {
	defer w.done.Done()
	delay := 100 * time.Millisecond
	for {
		select {
		case <-w.stop:
			return
		case <-time.After(delay):
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		flushed := w.tryFlush(ctx)
		cancel()
		if flushed {
			return
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// tryFlush opens the bus if needed and delivers the spool; it reports
// whether the spool is now empty.
func (w *writer) tryFlush(ctx context.Context) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spool == nil {
		w.flushing = false
		return true
	}
	if w.bus == nil {
		b, err := w.open(ctx)
		if err != nil {
			return false
		}
		w.bus = b
	}
	w.spool.close()
	n, err := flushSpool(ctx, w.bus.Runs(), w.spool.path)
	if err != nil {
		w.disconnect(err)
		if sp, oerr := openSpool(w.spoolDir, w.runID); oerr == nil {
			w.spool = sp
		}
		return false
	}
	w.log.Info("bus reachable again; flushed the spool", "records", n)
	w.spool, w.flushing = nil, false
	return true
}

// close makes a last attempt to deliver the spool within ctx, stops the
// flusher and closes the bus. Records still spooled stay on disk for the
// next recorder to flush; the error says where.
func (w *writer) close(ctx context.Context) error {
	close(w.stop)
	w.done.Wait()
	w.mu.Lock()
	pending := w.spool != nil
	w.mu.Unlock()
	if pending && !w.tryFlush(ctx) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.spool != nil {
			w.spool.close()
		}
		return fmt.Errorf("recorder: bus unreachable at exit; events of run %s are kept in %s and will be flushed by the next rote record", w.runID, spoolPath(w.spoolDir, w.runID))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.bus != nil {
		return w.bus.Close()
	}
	return nil
}
