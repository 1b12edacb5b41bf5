package perception

import (
	"context"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// maxRemoteFrames bounds the out-of-process frames kept attached per page.
const maxRemoteFrames = 32

// A cross-site iframe runs in a renderer of its own: the page's DOM
// snapshot and accessibility tree end at its iframe element. Chrome
// reports such a frame to every session on its parent with auto-attach
// on (chromedp turns it on for every target it attaches to) as an
// "iframe" target; perception attaches a session of its own to each,
// captures it there, and joins it to the page under its iframe.

// remoteFrames are the out-of-process frames one target (a page or a
// frame) reports, each with a session once it is captured.
type remoteFrames struct {
	parent context.Context // the chromedp context of the target that reports them

	mu       sync.Mutex
	ids      []target.ID // reported and not yet detached, in order
	sessions map[target.SessionID]target.ID
	frames   map[target.ID]*remoteFrame
}

// remoteFrame is a session on one out-of-process frame.
type remoteFrame struct {
	ctx    context.Context
	cancel context.CancelFunc
	nested *remoteFrames // the frames it holds
}

// newRemoteFrames returns the record of a target's frames; its parent
// is set once the target's context exists, since the record must listen
// from the target's first message (WithListener).
func newRemoteFrames() *remoteFrames {
	return &remoteFrames{sessions: map[target.SessionID]target.ID{}, frames: map[target.ID]*remoteFrame{}}
}

// onEvent follows the target's frames: a chromedp listener, so it only
// records.
func (r *remoteFrames) onEvent(ev any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := ev.(type) {
	case *target.EventAttachedToTarget:
		if e.TargetInfo == nil || e.TargetInfo.Type != "iframe" {
			return
		}
		r.sessions[e.SessionID] = e.TargetInfo.TargetID
		if !slices.Contains(r.ids, e.TargetInfo.TargetID) {
			r.ids = append(r.ids, e.TargetInfo.TargetID)
			if len(r.ids) > maxRemoteFrames {
				r.forgetLocked(r.ids[0])
			}
		}
	case *target.EventDetachedFromTarget:
		if id, ok := r.sessions[e.SessionID]; ok {
			delete(r.sessions, e.SessionID)
			r.forgetLocked(id)
		}
	}
}

func (r *remoteFrames) forgetLocked(id target.ID) {
	if i := slices.Index(r.ids, id); i >= 0 {
		r.ids = slices.Delete(r.ids, i, i+1)
	}
	if f := r.frames[id]; f != nil {
		f.close()
		delete(r.frames, id)
	}
}

// attached returns a session on each frame reported, attaching to the
// new ones, in the order they were reported.
func (r *remoteFrames) attached() map[target.ID]*remoteFrame {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[target.ID]*remoteFrame, len(r.ids))
	for _, id := range r.ids {
		f := r.frames[id]
		if f == nil {
			f = &remoteFrame{nested: newRemoteFrames()}
			f.ctx, f.cancel = chromedp.NewContext(r.parent, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel(), chromedp.WithListener(f.nested.onEvent))
			f.nested.parent = f.ctx
			if err := chromedp.Do(f.ctx); err != nil {
				f.cancel() // a frame that cannot be attached to is gone
				continue
			}
			r.frames[id] = f
		}
		out[id] = f
	}
	return out
}

// close detaches from every frame.
func (r *remoteFrames) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id := range r.frames {
		r.frames[id].close()
	}
	r.frames = map[target.ID]*remoteFrame{}
}

func (f *remoteFrame) close() {
	f.nested.close()
	f.cancel()
}
