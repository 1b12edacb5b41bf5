package actuator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/schema"
)

// element is a resolved page element the actions work on: in the page,
// or in one of its out-of-process frames, whose session its handle and
// scripts belong to.
type element struct {
	backend cdp.BackendNodeID
	object  runtime.RemoteObjectID
	ctx     context.Context // the chromedp context of its target
	frame   *frame          // nil in the page's own process
}

// run executes f on the session's page target.
func (s *session) run(f func(ctx context.Context, t *chromedp.Target) error) error {
	return s.fail(chromedp.Do(s.ctx, chromedp.Func(f)))
}

// runIn executes f on el's target.
func (s *session) runIn(el *element, f func(ctx context.Context, t *chromedp.Target) error) error {
	return s.fail(chromedp.Do(el.ctx, chromedp.Func(f)))
}

// element resolves an observed node to a JavaScript object handle, in
// the frame it is in.
func (s *session) element(ctx context.Context, n *schema.ObservedNode) (*element, error) {
	el := &element{backend: cdp.BackendNodeID(n.Backend), ctx: s.ctx}
	if n.Frame != "" {
		fr, err := s.frames.get(ctx, n.Frame)
		if err != nil {
			return nil, err
		}
		el.ctx, el.frame = fr.ctx, fr
	}
	err := s.runIn(el, func(ctx context.Context, t *chromedp.Target) error {
		res, err := cdp.Call(ctx, t, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: el.backend})
		if err != nil {
			return schema.Errorf(schema.CodeNotFound, "the element left the page: %v", err)
		}
		el.object = res.Object.ObjectID
		return nil
	})
	return el, err
}

// call runs a JavaScript function with the element as this, and decodes
// its JSON result into out (nil to ignore it).
func (s *session) call(el *element, fn string, out any, args ...any) error {
	return s.callOn(el.ctx, el.object, fn, out, args...)
}

func (s *session) callOn(ctx context.Context, object runtime.RemoteObjectID, fn string, out any, args ...any) error {
	return s.fail(chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		var callArgs []*runtime.CallArgument
		for _, a := range args {
			raw, err := json.Marshal(a)
			if err != nil {
				return err
			}
			callArgs = append(callArgs, &runtime.CallArgument{Value: raw})
		}
		res, err := cdp.Call(ctx, t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: fn, ObjectID: object, Arguments: callArgs, ReturnByValue: new(true), AwaitPromise: new(true),
		})
		if err != nil {
			return err
		}
		if res.ExceptionDetails != nil {
			return schema.Errorf(schema.CodeInternal, "page script failed: %s", res.ExceptionDetails.Text)
		}
		if out != nil && res.Result != nil && len(res.Result.Value) > 0 {
			return json.Unmarshal(res.Result.Value, out)
		}
		return nil
	})))
}

// point scrolls the element into view and returns the center of its
// first box, in the main frame's viewport. The element must be the
// topmost thing there: otherwise another element (an overlay, a dialog)
// would take the click, and the action is refused with CodeObscured. An
// element in an out-of-process frame is found in its frame's viewport,
// then carried out through each frame's iframe, which must itself be
// topmost where the point falls.
func (s *session) point(el *element) (float64, float64, error) {
	var x, y float64
	err := s.runIn(el, func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: el.backend}); err != nil {
			if strings.Contains(err.Error(), "detached") {
				return schema.Errorf(schema.CodeNotFound, "the element left the page as it was about to be acted on (the page replaced it)")
			}
			return schema.Errorf(schema.CodeNotFound, "cannot scroll to the element: %v", err)
		}
		quads, err := cdp.Call(ctx, t, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: el.backend})
		if err != nil || len(quads.Quads) == 0 || len(quads.Quads[0]) < 8 {
			return schema.Errorf(schema.CodeNotFound, "the element has no box to click")
		}
		q := quads.Quads[0]
		x, y = (q[0]+q[2]+q[4]+q[6])/4, (q[1]+q[3]+q[5]+q[7])/4
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	if err := s.topmost(el.ctx, el.object, x, y); err != nil {
		return 0, 0, err
	}
	for fr := el.frame; fr != nil; fr = fr.parent {
		holder := s.ctx
		if fr.parent != nil {
			holder = fr.parent.ctx
		}
		var owner runtime.RemoteObjectID
		err := s.fail(chromedp.Do(holder, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			o, err := cdp.Call(ctx, t, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: cdp.FrameID(fr.id)})
			if err != nil {
				return schema.Errorf(schema.CodeNotFound, "the frame's iframe is gone: %v", err)
			}
			box, err := cdp.Call(ctx, t, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: o.BackendNodeID})
			if err != nil || box.Model == nil || len(box.Model.Content) < 2 {
				return schema.Errorf(schema.CodeNotFound, "the frame's iframe has no box")
			}
			x, y = x+box.Model.Content[0], y+box.Model.Content[1]
			res, err := cdp.Call(ctx, t, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: o.BackendNodeID})
			if err != nil {
				return schema.Errorf(schema.CodeNotFound, "the frame's iframe left the page: %v", err)
			}
			owner = res.Object.ObjectID
			return nil
		})))
		if err != nil {
			return 0, 0, err
		}
		if err := s.topmost(holder, owner, x, y); err != nil {
			return 0, 0, err
		}
	}
	return x, y, nil
}

// topmost checks that object, in the target of ctx, is what a click at
// (x, y) of that target's viewport reaches.
func (s *session) topmost(ctx context.Context, object runtime.RemoteObjectID, x, y float64) error {
	var hit struct {
		OK  bool   `json:"ok"`
		Hit string `json:"hit"`
	}
	if err := s.callOn(ctx, object, topmostScript, &hit, x, y); err != nil {
		return err
	}
	if !hit.OK {
		return schema.Errorf(schema.CodeObscured, "another element (%s) covers the target", hit.Hit)
	}
	return nil
}

// topmostScript: is this element (or its label) what a click at (x, y)
// of the main viewport reaches? The point is carried into the element's
// own frame and shadow root, where elementFromPoint answers.
const topmostScript = `function(x, y) {
  const self = this.nodeType === Node.TEXT_NODE ? this.parentElement : this; // a text is where its element is
  for (let w = self.ownerDocument.defaultView; w.frameElement; w = w.parent) {
    const r = w.frameElement.getBoundingClientRect();
    x -= r.left + w.frameElement.clientLeft;
    y -= r.top + w.frameElement.clientTop;
  }
  const hit = self.getRootNode().elementFromPoint(x, y);
  const ok = hit === self || self.contains(hit) || (hit && hit.control === self) ||
    (self.labels ? [...self.labels].some(l => l === hit || l.contains(hit)) : false);
  const tag = hit ? hit.tagName.toLowerCase() + (hit.id ? '#' + hit.id : '') : 'nothing';
  return {ok: ok, hit: tag};
}`

// click moves the mouse to the element's center and clicks there. The
// pointer arriving can change the page by CSS alone (:hover showing
// another control in the target's place): the element must still be
// what the point reaches, where it was, once the pointer is on it, or
// nothing is clicked (CodeObscured).
func (s *session) click(el *element) error {
	x, y, err := s.point(el)
	if err != nil {
		return err
	}
	if err := s.fail(chromedp.Do(s.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))); err != nil {
		return err
	}
	x2, y2, err := s.point(el)
	var e *schema.Error
	switch {
	case errors.As(err, &e):
		return schema.Errorf(e.Code, "once the pointer was on it, %s", e.Message)
	case err != nil:
		return err
	}
	if math.Abs(x2-x) > 1 || math.Abs(y2-y) > 1 {
		return schema.Errorf(schema.CodeObscured, "the target moved when the pointer reached it")
	}
	return s.fail(chromedp.Do(s.ctx, chromedp.MouseClickXY(x, y)))
}

// hover moves the mouse to the element's center.
func (s *session) hover(el *element) error {
	x, y, err := s.point(el)
	if err != nil {
		return err
	}
	return s.fail(chromedp.Do(s.ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y)))
}

// clearScript empties a field the way a user would before typing, through
// the native setter so that frameworks see the change, and selects the
// contents of an editable element so that typing replaces them.
const clearScript = `function() {
  this.focus();
  if (this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement) {
    const proto = this instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(this, '');
    this.dispatchEvent(new Event('input', {bubbles: true}));
    return true;
  }
  if (this.isContentEditable) {
    const r = document.createRange(); r.selectNodeContents(this);
    const sel = getSelection(); sel.removeAllRanges(); sel.addRange(r);
    return true;
  }
  return false;
}`

const readValueScript = `function() {
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return this.isContentEditable ? this.innerText : this.value;
}`

// fill replaces the element's value with value, typed as text input. As
// for a user, the field must be reachable: not covered by anything.
func (s *session) fill(el *element, value string) error {
	if _, _, err := s.point(el); err != nil {
		return err
	}
	var editable bool
	if err := s.call(el, clearScript, &editable); err != nil {
		return err
	}
	if !editable {
		return schema.Errorf(schema.CodeControlChanged, "fill: the element takes no text")
	}
	if value != "" {
		// Typed where the field is: in its frame's renderer, when it is in one.
		if err := s.runIn(el, func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: value})
			return err
		}); err != nil {
			return err
		}
	}
	var got string
	if err := s.call(el, readValueScript, &got); err != nil {
		return err
	}
	if strings.TrimRight(got, "\n") != value {
		return schema.Errorf(schema.CodeControlChanged, "fill: the field holds %q, not %q: it does not take the value as typed (a length limit or a script changed it)", got, value)
	}
	return nil
}

const selectScript = `function(want) {
  if (!(this instanceof HTMLSelectElement)) return {error: 'the control is no <select> (click the option of a listbox or combobox instead)'};
  // Only the options a person is offered: not hidden, nor in a hidden group.
  const shown = o => !o.hidden && getComputedStyle(o).display !== 'none' &&
    !(o.parentElement instanceof HTMLOptGroupElement && (o.parentElement.hidden || getComputedStyle(o.parentElement).display === 'none'));
  const opts = [...this.options].filter(shown);
  const offered = opts.filter(o => o.value !== '').map(o => o.label.trim());
  let found = [];
  for (const same of [o => o.label.trim() === want, o => o.value === want, o => o.textContent.trim() === want]) {
    found = opts.filter(same);
    if (found.length) break;
  }
  if (found.length === 0) return {options: offered, missing: true};
  if (found.length > 1) return {options: offered, twins: found.length};
  const o = found[0];
  if (o.disabled || (o.parentElement instanceof HTMLOptGroupElement && o.parentElement.disabled)) return {options: offered, disabled: true};
  if (!this.multiple) this.value = o.value; // a multiple select keeps what else was chosen
  o.selected = true;
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {options: offered};
}`

// selectOption chooses the one option shown whose label, else value,
// else text is value, and returns the labels of the options the select
// offered (placeholders with an empty value left out). Two options that
// fit are ambiguous; a hidden option is not offered. The select must be
// reachable: not covered by anything.
func (s *session) selectOption(el *element, value string) ([]string, error) {
	if _, _, err := s.point(el); err != nil {
		return nil, err
	}
	var res struct {
		Error    string   `json:"error"`
		Options  []string `json:"options"`
		Missing  bool     `json:"missing"`
		Twins    int      `json:"twins"`
		Disabled bool     `json:"disabled"`
	}
	if err := s.call(el, selectScript, &res, value); err != nil {
		return nil, err
	}
	switch {
	case res.Error != "":
		return nil, schema.Errorf(schema.CodeControlChanged, "select: %s", res.Error)
	case res.Missing:
		return res.Options, schema.Errorf(schema.CodeNotFound, "select: no option %q (options: %s)", value, strings.Join(res.Options, ", "))
	case res.Twins > 0:
		return res.Options, schema.Errorf(schema.CodeAmbiguous, "select: %d options are %q: refusing to guess", res.Twins, value)
	case res.Disabled:
		return res.Options, schema.Errorf(schema.CodeStateChanged, "select: the option %q is disabled", value)
	}
	return res.Options, nil
}

const checkedScript = `function() { return this.getAttribute('aria-checked') !== null ? this.getAttribute('aria-checked') === 'true' : !!this.checked; }`

// check makes a checkbox, radio or switch checked (want true) or not, by
// clicking it only when it is not already so.
func (s *session) check(el *element, want bool) error {
	var checked bool
	if err := s.call(el, checkedScript, &checked); err != nil {
		return err
	}
	if checked == want {
		return nil
	}
	if err := s.click(el); err != nil {
		return err
	}
	if err := s.call(el, checkedScript, &checked); err != nil {
		return err
	}
	if checked != want {
		return schema.Errorf(schema.CodeInternal, "check: the control did not change state")
	}
	return nil
}

const extractScript = `function() {
  if (this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement || this instanceof HTMLSelectElement) return this.value;
  return this.innerText;
}`

// extract returns the element's text (its value for a field), or the
// text of the page's main content when there is no element.
func (s *session) extract(el *element) (string, error) {
	var text string
	if el != nil {
		err := s.call(el, extractScript, &text)
		return text, err
	}
	text, err := chromedp.Run(s.ctx, chromedp.Evaluate[string](`(document.querySelector('main') || document.body).innerText`))
	return text, s.fail(err)
}

// navigate loads rawURL, resolved against the current page, and waits for
// the load event (at most loadWait, after which the load is stopped and
// stopped is true). An address the session may not load (see
// schema.CheckNavigation) is out_of_origin, before anything is sent; a
// load the gate refused on the way (a redirect off the origins) is its
// refusal.
func (s *session) navigate(rawURL string) (stopped bool, err error) {
	current, err := chromedp.Run(s.ctx, chromedp.Location())
	if err != nil {
		return false, s.fail(err)
	}
	target := rawURL
	if base, err := url.Parse(current); err == nil && base.Scheme != "about" {
		if ref, err := base.Parse(rawURL); err == nil {
			target = ref.String()
		}
	}
	if _, err := schema.CheckNavigation(target, s.gate.origins); err != nil {
		return false, err
	}
	loading, cancel := context.WithTimeout(s.ctx, loadWait)
	defer cancel()
	s.dialogs.leave(true)
	err = chromedp.Do(loading, chromedp.Navigate(target))
	s.dialogs.leave(false)
	refused := s.gate.take()
	if refused != nil {
		return false, refused // a redirect off the origins, answered at the gate
	}
	if err != nil && loading.Err() != nil && s.ctx.Err() == nil {
		// The page is there but never finished loading (an image or a
		// frame whose response never ends): it is stopped as it is, as a
		// person would press stop, rather than holding the session, whose
		// every later call waited behind it.
		stopped = true
		err = s.run(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, page.StopLoading, cdp.Empty{})
			return err
		})
	}
	if err != nil && strings.Contains(err.Error(), "net::ERR_") && s.browser.proc.Alive() {
		// The browser's own word for a site it could not reach.
		return stopped, schema.Errorf(schema.CodeUnavailable, "navigate to %s: the page could not be loaded: %v", target, err)
	}
	if err != nil {
		return stopped, s.fail(fmt.Errorf("navigate to %s: %w", target, err))
	}
	return stopped, nil
}

// loadWait is how long a navigation waits for its page's load event
// before it stops the page loading and goes on with what arrived.
const loadWait = 15 * time.Second
