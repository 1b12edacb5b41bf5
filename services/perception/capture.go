package perception

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domsnapshot"
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
	info, err := chromedp.Run(ctx, chromedp.Evaluate[pageInfo](pageInfoScript))
	if err != nil {
		return nil, fmt.Errorf("perception: page info: %w", err)
	}
	c.url, c.title, c.text = info.URL, info.Title, info.Text
	c.took = time.Since(start)
	return c, nil
}
