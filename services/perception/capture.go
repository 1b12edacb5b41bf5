package perception

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// elementNode is the DOM nodeType of an element.
const elementNode = 1

// capture is one raw observation of a page, or of one of its
// out-of-process frames.
type capture struct {
	url, title, text string
	dom              *domIndex
	frames           []axFrame
	// remote are the out-of-process frames in the page, by the backend id
	// of their iframe element in dom.
	remote map[int64]*capture
	// frame is the target id of the frame captured; "" for the page.
	frame    string
	elements int
	took     time.Duration
}

// pageInfo is read from the page with one script.
type pageInfo struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// pageInfoJS is a function of whether to read the text: it returns the
// page's address, title and the text a person can see on it.
//
//go:embed pageinfo.js
var pageInfoJS string

// maxFrameDepth bounds how deep out-of-process frames are followed.
const maxFrameDepth = 4

// capturePage captures the page of a chromedp context: the DOM snapshot
// (all same-origin frames, shadow DOM flattened), the accessibility tree
// of each of those frames and the event listeners, and the same of each
// out-of-process frame that frames reports, joined under its iframe. Its
// text is the page's visible text, then each such frame's, when withText
// (a capture that only resolves a target needs none).
func capturePage(ctx context.Context, frames *remoteFrames, withText bool) (*capture, error) {
	start := time.Now()
	c, err := captureDocument(ctx, "", withText)
	if err != nil {
		return nil, err
	}
	c.addRemote(ctx, frames, 1, withText)
	c.took = time.Since(start)
	return c, nil
}

// addRemote captures the out-of-process frames that frames reports for
// the target of ctx, whose capture c is. A frame that went away or is no
// child of this document is left out.
func (c *capture) addRemote(ctx context.Context, frames *remoteFrames, depth int, withText bool) {
	if frames == nil || depth > maxFrameDepth {
		return
	}
	for id, f := range frames.attached() {
		owner, err := chromedp.Call(ctx, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: cdp.FrameID(id)})
		if err != nil || c.dom.nodes[int64(owner.BackendNodeID)] == nil {
			continue
		}
		rc, err := captureDocument(f.ctx, string(id), withText)
		if err != nil {
			continue
		}
		rc.addRemote(f.ctx, f.nested, depth+1, withText)
		if c.remote == nil {
			c.remote = map[int64]*capture{}
		}
		c.remote[int64(owner.BackendNodeID)] = rc
		c.elements += rc.elements
		if rc.text != "" {
			c.text += "\n" + rc.text
		}
	}
}

// captureDocument captures one target's documents. Its four reads (the
// DOM snapshot, the accessibility tree, the event listeners, the page's
// address and text) go to the browser at once: each waits on the
// renderer, not on the others.
func captureDocument(ctx context.Context, frame string, withText bool) (*capture, error) {
	var (
		snap      domsnapshot.CaptureSnapshotResult
		main      accessibility.GetFullAXTreeResult
		listeners []*domdebugger.EventListener
		info      pageInfo
	)
	// A context's first use attaches it to its target: not from four
	// goroutines at once.
	if err := chromedp.Do(ctx); err != nil {
		return nil, fmt.Errorf("perception: attach: %w", err)
	}
	err := atOnce(
		func() (err error) {
			snap, err = chromedp.Call(ctx, domsnapshot.CaptureSnapshot, domsnapshot.CaptureSnapshotParams{ComputedStyles: snapshotStyles})
			return readFailed("DOM snapshot", err)
		},
		func() (err error) {
			main, err = chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
			return readFailed("accessibility tree", err)
		},
		func() (err error) {
			listeners, err = pageListeners(ctx)
			return readFailed("event listeners", err)
		},
		func() (err error) {
			info, err = chromedp.Run(ctx, chromedp.Evaluate[pageInfo]("("+pageInfoJS+")("+strconv.FormatBool(withText)+")"))
			return readFailed("page info", err)
		},
	)
	if err != nil {
		return nil, err
	}
	c := &capture{dom: newDOMIndex(&snap), frames: []axFrame{{Nodes: main.Nodes}}, frame: frame}
	// Same-origin iframes are documents of the snapshot; the iframe element
	// that owns each one points at it with contentDocumentIndex.
	for _, doc := range snap.Documents {
		nt := doc.Nodes
		if nt == nil {
			continue
		}
		for _, n := range nt.NodeType {
			if n == elementNode {
				c.elements++
			}
		}
		if nt.ContentDocumentIndex == nil {
			continue
		}
		for k, idx := range nt.ContentDocumentIndex.Index {
			child := int(nt.ContentDocumentIndex.Value[k])
			if child <= 0 || child >= len(snap.Documents) {
				continue
			}
			frameID := c.dom.str(snap.Documents[child].FrameID)
			ax, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{FrameID: cdp.FrameID(frameID)})
			if err != nil {
				continue // a frame that went away or cannot be read: leave it out
			}
			c.frames = append(c.frames, axFrame{Owner: int64(nt.BackendNodeID[idx]), Nodes: ax.Nodes})
		}
	}
	c.dom.addListeners(listeners)
	c.url, c.title, c.text = info.URL, info.Title, info.Text
	return c, nil
}

// atOnce runs each read in a goroutine of its own and returns their
// errors joined once all have ended.
func atOnce(reads ...func() error) error {
	errs := make([]error, len(reads))
	var wg sync.WaitGroup
	for i, read := range reads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = read()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// readFailed names the capture's read that failed with err; nil stays nil.
func readFailed(read string, err error) error {
	if err != nil {
		return fmt.Errorf("perception: %s: %w", read, err)
	}
	return nil
}

// pageListeners are the event listeners of the whole page, as DOMDebugger
// reports them (shadow roots and same-origin frames included).
func pageListeners(ctx context.Context) ([]*domdebugger.EventListener, error) {
	var out []*domdebugger.EventListener
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		doc, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: "document"})
		if err != nil || doc.Result == nil || doc.Result.ObjectID == "" {
			return fmt.Errorf("no document object: %v", err)
		}
		defer cdp.Call(ctx, t, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: doc.Result.ObjectID})
		res, err := cdp.Call(ctx, t, domdebugger.GetEventListeners, domdebugger.GetEventListenersParams{ObjectID: doc.Result.ObjectID, Depth: new(int64(-1)), Pierce: new(true)})
		if err != nil {
			return err
		}
		out = res.Listeners
		return nil
	}))
	return out, err
}

// addListeners marks the elements that listen for clicks, hovers, drags
// or drops of their own: a span with a click handler is a control to a
// person, though nothing in the accessibility tree says so.
func (x *domIndex) addListeners(listeners []*domdebugger.EventListener) {
	for _, l := range listeners {
		if n := x.nodes[int64(l.BackendNodeID)]; n != nil {
			n.listens |= listenKinds[l.Type]
		}
	}
}
