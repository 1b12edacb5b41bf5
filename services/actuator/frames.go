package actuator

import (
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/schema"
)

// A cross-site iframe runs in a renderer of its own, which reports its
// requests and owns its DOM on a target of its own: the page's session
// sees the frame's document request start and never finish, and cannot
// resolve the frame's elements. Chrome reports each such frame to the
// page's session (chromedp turns auto-attach on); the session attaches
// one of its own to it, whose network events feed the page's settle
// tracker and where actions on the frame's elements run.

// maxFrames bounds the out-of-process frames a session keeps.
const maxFrames = 32

// frameWait is how long an action waits for the session on a frame that
// perception has seen but the actuator has not attached to yet.
const frameWait = 2 * time.Second

// frames are a session's out-of-process frames.
type frames struct {
	page context.Context // the page's chromedp context
	net  *netTracker

	mu       sync.Mutex
	byTarget map[target.ID]*frame
	sessions map[target.SessionID]target.ID
	changed  chan struct{} // closed and replaced when a frame is attached
}

// frame is a session on one out-of-process frame.
type frame struct {
	id     target.ID
	ctx    context.Context
	cancel context.CancelFunc
	parent *frame // nil: the page holds it
}

func newFrames(net *netTracker) *frames {
	return &frames{net: net, byTarget: map[target.ID]*frame{}, sessions: map[target.SessionID]target.ID{}, changed: make(chan struct{})}
}

// listener follows the frames the target of parent (nil: the page)
// reports: a chromedp listener, so it records and attaches elsewhere.
func (f *frames) listener(parent *frame) func(any) {
	return func(ev any) {
		switch e := ev.(type) {
		case *target.EventAttachedToTarget:
			if e.TargetInfo != nil && e.TargetInfo.Type == "worker" {
				f.net.dropWorker(e.TargetInfo.URL)
				return
			}
			if e.TargetInfo == nil || e.TargetInfo.Type != "iframe" {
				return
			}
			id := e.TargetInfo.TargetID
			// From here on the frame's own target reports its requests: the
			// document request its parent saw start finishes there.
			f.net.dropFrame(cdp.FrameID(id))
			f.mu.Lock()
			f.sessions[e.SessionID] = id
			f.mu.Unlock()
			go f.attach(id, parent)
		case *target.EventDetachedFromTarget:
			f.mu.Lock()
			defer f.mu.Unlock()
			if id, ok := f.sessions[e.SessionID]; ok {
				delete(f.sessions, e.SessionID)
				f.dropLocked(id)
			}
		}
	}
}

// attach opens a session on frame id.
func (f *frames) attach(id target.ID, parent *frame) {
	holder := f.page
	if parent != nil {
		holder = parent.ctx
	}
	fr := &frame{id: id, parent: parent}
	fr.ctx, fr.cancel = chromedp.NewContext(holder, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel(),
		chromedp.WithListener(f.net.from(cdp.FrameID(id))), chromedp.WithListener(f.listener(fr)))
	if err := chromedp.Do(fr.ctx); err != nil {
		fr.cancel() // the frame went away before it could be attached to
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dropLocked(id)
	if len(f.byTarget) >= maxFrames {
		fr.cancel()
		return
	}
	f.byTarget[id] = fr
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *frames) dropLocked(id target.ID) {
	if old := f.byTarget[id]; old != nil {
		old.cancel()
		delete(f.byTarget, id)
	}
}

// get returns the session on frame id, waiting up to frameWait for one
// that is being attached. A frame that has none is not_found.
func (f *frames) get(ctx context.Context, id string) (*frame, error) {
	deadline := time.After(frameWait)
	for {
		f.mu.Lock()
		fr, changed := f.byTarget[target.ID(id)], f.changed
		f.mu.Unlock()
		if fr != nil {
			return fr, nil
		}
		select {
		case <-changed:
		case <-deadline:
			return nil, schema.Errorf(schema.CodeNotFound, "the frame %s the element is in is gone", id)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// close detaches from every frame.
func (f *frames) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id := range f.byTarget {
		f.dropLocked(id)
	}
}
