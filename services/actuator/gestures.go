package actuator

import (
	"context"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/rote-agent/rote/schema"
)

// The gestures a person makes that are more than one click or one key:
// a drag from one element onto another, a key chord, a value set on an
// input that takes no typing.

// dragSteps is how many mouse moves a drag makes on its way: pages that
// sort by pointer events follow the pointer, not its end.
const dragSteps = 8

// dragNotice is how long a drag waits, after its last move, for the
// browser to say an HTML5 drag began.
const dragNotice = 100 * time.Millisecond

// drag presses the mouse on src, moves it onto dst and releases it there.
// An HTML5 drag (a draggable element) that the move starts is caught by
// the browser (Input.setInterceptDrags) and dropped on dst with its data,
// as a person's drop would be; a drag made of pointer events gets them.
// Both elements must be reachable: nothing may cover them.
func (s *session) drag(src, dst *element) error {
	x1, y1, err := s.point(src)
	if err != nil {
		return err
	}
	x2, y2, err := s.point(dst)
	if err != nil {
		return err
	}
	lctx, stop := context.WithCancel(s.ctx)
	defer stop()
	dragged := make(chan *input.DragData, 1)
	if err := chromedp.Listen(lctx, func(ev any) {
		if e, ok := ev.(*input.EventDragIntercepted); ok {
			select {
			case dragged <- e.Data:
			default:
			}
		}
	}); err != nil {
		return s.fail(err)
	}
	return s.run(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: true}); err != nil {
			return err
		}
		defer cdp.Call(ctx, t, input.SetInterceptDrags, input.SetInterceptDragsParams{Enabled: false})
		mouse := func(typ input.DispatchMouseEventType, x, y float64, buttons int64) error {
			p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Buttons: buttons}
			if typ != input.DispatchMouseEventTypeMouseMoved {
				p.ClickCount = 1
			}
			if typ != input.DispatchMouseEventTypeMouseMoved || buttons != 0 {
				p.Button = input.MouseButtonLeft // a move with the button held says so
			}
			_, err := cdp.Call(ctx, t, input.DispatchMouseEvent, p)
			return err
		}
		if err := mouse(input.DispatchMouseEventTypeMouseMoved, x1, y1, 0); err != nil {
			return err
		}
		if err := mouse(input.DispatchMouseEventTypeMousePressed, x1, y1, 1); err != nil {
			return err
		}
		var data *input.DragData
		for i := 1; i <= dragSteps && data == nil; i++ {
			f := float64(i) / dragSteps
			if err := mouse(input.DispatchMouseEventTypeMouseMoved, x1+(x2-x1)*f, y1+(y2-y1)*f, 1); err != nil {
				return err
			}
			select {
			case data = <-dragged:
			default:
			}
		}
		if data == nil {
			// The browser may say a drag began after the last move returned.
			select {
			case data = <-dragged:
			case <-time.After(dragNotice):
			}
		}
		if data != nil {
			for _, typ := range []input.DispatchDragEventType{input.DispatchDragEventTypeDragEnter, input.DispatchDragEventTypeDragOver, input.DispatchDragEventTypeDrop} {
				if _, err := cdp.Call(ctx, t, input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: x2, Y: y2, Data: data}); err != nil {
					return err
				}
			}
		}
		return mouse(input.DispatchMouseEventTypeMouseReleased, x2, y2, 0)
	})
}

// modifierBits are CDP's modifier flags.
var modifierBits = map[string]int64{"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}

// keyCodes maps schema.Keys to chromedp's key codes.
var keyCodes = map[string]string{
	"Enter": kb.Enter, "Tab": kb.Tab, "Escape": kb.Escape, "Backspace": kb.Backspace, "Delete": kb.Delete, "Insert": kb.Insert, "Space": " ",
	"ArrowUp": kb.ArrowUp, "ArrowDown": kb.ArrowDown, "ArrowLeft": kb.ArrowLeft, "ArrowRight": kb.ArrowRight,
	"Home": kb.Home, "End": kb.End, "PageUp": kb.PageUp, "PageDown": kb.PageDown,
	"F1": kb.F1, "F2": kb.F2, "F3": kb.F3, "F4": kb.F4, "F5": kb.F5, "F6": kb.F6,
	"F7": kb.F7, "F8": kb.F8, "F9": kb.F9, "F10": kb.F10, "F11": kb.F11, "F12": kb.F12,
}

// press sends a key or a chord (schema.ParseChord), to the element when
// there is one: the modifiers are pressed, the key pressed and released,
// the modifiers released, as a keyboard sends them. A key pressed with
// Control, Alt or Meta types nothing.
func (s *session) press(el *element, key string) error {
	chord, err := schema.ParseChord(key)
	if err != nil {
		return err
	}
	code, ok := keyCodes[chord.Key]
	if !ok {
		code = chord.Key
	}
	at := &element{ctx: s.ctx} // the keys go to the page, or to the element's frame
	if el != nil {
		if err := s.call(el, `function() { this.focus(); }`, nil); err != nil {
			return err
		}
		at = el
	}
	return s.runIn(at, func(ctx context.Context, t *chromedp.Target) error {
		var held int64
		send := func(p input.DispatchKeyEventParams) error {
			_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, p)
			return err
		}
		for _, m := range chord.Modifiers {
			held |= modifierBits[m]
			if err := send(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeRawKeyDown, Key: m, Code: m + "Left", Modifiers: held, WindowsVirtualKeyCode: modifierKeyCode[m]}); err != nil {
				return err
			}
		}
		for _, r := range code {
			for _, k := range kb.Encode(r) {
				k.Modifiers |= held
				if held&^modifierBits["Shift"] != 0 {
					if k.Type == input.DispatchKeyEventTypeChar {
						continue
					}
					if k.Type == input.DispatchKeyEventTypeKeyDown {
						k.Type = input.DispatchKeyEventTypeRawKeyDown
					}
					k.Text, k.UnmodifiedText = "", ""
				}
				if err := send(*k); err != nil {
					return err
				}
			}
		}
		for i := len(chord.Modifiers) - 1; i >= 0; i-- {
			m := chord.Modifiers[i]
			held &^= modifierBits[m]
			if err := send(input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: m, Code: m + "Left", Modifiers: held, WindowsVirtualKeyCode: modifierKeyCode[m]}); err != nil {
				return err
			}
		}
		return nil
	})
}

// modifierKeyCode are the modifiers' Windows virtual key codes.
var modifierKeyCode = map[string]int64{"Shift": 16, "Control": 17, "Alt": 18, "Meta": 91}

// setValueScript sets an input that takes no typing (a date, a time, a
// range, a color, a number) to a value through the native setter, so
// that frameworks see it, and fires input and change as a person's choice
// would. It first tries the value on a detached copy of the input, which
// fires nothing: a value the browser would normalize (a range snaps to
// its step, a colour name becomes #rrggbb, a date out of format empties
// it) or that breaks the input's min, max or step is refused there, and
// the page's input is never touched.
const setValueScript = `function(want) {
  const kinds = ['date', 'time', 'datetime-local', 'month', 'week', 'range', 'color', 'number'];
  if (!(this instanceof HTMLInputElement) || !kinds.includes(this.type)) return {error: (this.type || this.tagName.toLowerCase())};
  const probe = this.cloneNode(false);
  probe.removeAttribute('disabled'); probe.removeAttribute('readonly');
  probe.value = want;
  const v = probe.validity;
  const why = probe.value.toLowerCase() !== want.toLowerCase() ? 'it would hold ' + JSON.stringify(probe.value) :
    v.badInput ? 'not its format' : v.rangeUnderflow ? 'under its min ' + this.min : v.rangeOverflow ? 'over its max ' + this.max :
    v.stepMismatch ? 'off its step ' + (this.step || '(the default for ' + this.type + ')') : '';
  if (why) return {refused: why};
  this.focus();
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(this, want);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {value: this.value};
}`

// setValue sets a date, time, range, color or number input to value. A
// field of another kind is control_changed (fill types into text fields);
// a value the input cannot hold as given (out of its range or step, or
// not in its format) is refused before the input is touched, and one it
// does not hold afterwards (a script changed it back) is refused too.
func (s *session) setValue(el *element, value string) error {
	if _, _, err := s.point(el); err != nil {
		return err
	}
	var res struct {
		Error   string `json:"error"`
		Refused string `json:"refused"`
		Value   string `json:"value"`
	}
	if err := s.call(el, setValueScript, &res, value); err != nil {
		return err
	}
	switch {
	case res.Error != "":
		return schema.Errorf(schema.CodeControlChanged, "set_value: the element is a %s, not a date, time, range, color or number input", res.Error)
	case res.Refused != "":
		return schema.Errorf(schema.CodeInvalid, "set_value: the input cannot hold %q (%s); it was left as it was", value, res.Refused)
	case !strings.EqualFold(res.Value, value):
		return schema.Errorf(schema.CodeInvalid, "set_value: the input holds %q, not %q (out of its range or step, or not its format)", res.Value, value)
	}
	return nil
}
