package perception

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domdebugger"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// elementNode is the DOM nodeType of an element.
const elementNode = 1

// capture is one raw observation of a page.
type capture struct {
	url, title, text string
	dom              *domIndex
	frames           []axFrame
	elements         int
	took             time.Duration
}

// pageInfo is read from the page with one script.
type pageInfo struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

const pageInfoScript = `({url: location.href, title: document.title, text: document.body ? document.body.innerText : ""})`

// capturePage captures the page of a chromedp context: the DOM snapshot
// (all same-origin frames, shadow DOM flattened) and the accessibility
// tree of each of those frames.
func capturePage(ctx context.Context) (*capture, error) {
	start := time.Now()
	snap, err := chromedp.Call(ctx, domsnapshot.CaptureSnapshot, domsnapshot.CaptureSnapshotParams{ComputedStyles: snapshotStyles})
	if err != nil {
		return nil, fmt.Errorf("perception: DOM snapshot: %w", err)
	}
	main, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		return nil, fmt.Errorf("perception: accessibility tree: %w", err)
	}
	c := &capture{dom: newDOMIndex(&snap), frames: []axFrame{{Nodes: main.Nodes}}}
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
	if err := c.dom.addListeners(ctx); err != nil {
		return nil, fmt.Errorf("perception: event listeners: %w", err)
	}
	info, err := chromedp.Run(ctx, chromedp.Evaluate[pageInfo](pageInfoScript))
	if err != nil {
		return nil, fmt.Errorf("perception: page info: %w", err)
	}
	c.url, c.title, c.text = info.URL, info.Title, info.Text
	c.took = time.Since(start)
	return c, nil
}

// addListeners marks the elements that listen for clicks, hovers, drags
// or drops of their own, as DOMDebugger reports them for the whole page
// (shadow roots and same-origin frames included): a span with a click
// handler is a control to a person, though nothing in the accessibility
// tree says so.
func (x *domIndex) addListeners(ctx context.Context) error {
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		doc, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: "document"})
		if err != nil || doc.Result == nil || doc.Result.ObjectID == "" {
			return fmt.Errorf("no document object: %v", err)
		}
		defer cdp.Call(ctx, t, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: doc.Result.ObjectID})
		res, err := cdp.Call(ctx, t, domdebugger.GetEventListeners, domdebugger.GetEventListenersParams{ObjectID: doc.Result.ObjectID, Depth: new(int64(-1)), Pierce: new(true)})
		if err != nil {
			return err
		}
		for _, l := range res.Listeners {
			if n := x.nodes[int64(l.BackendNodeID)]; n != nil {
				n.listens |= listenKinds[l.Type]
			}
		}
		return nil
	}))
}
