package actuator

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/rote-agent/rote/schema"
)

// TestDialogsAreDismissedAndReported: every dialog is dismissed, but a
// beforeunload during a navigate, which is leaving the page anyway, is
// accepted; what each asked is reported once, clipped, at most
// schema.MaxDialogs of them.
func TestDialogsAreDismissedAndReported(t *testing.T) {
	open := func(typ page.DialogType, message string) *page.EventJavascriptDialogOpening {
		return &page.EventJavascriptDialogOpening{Type: typ, Message: message}
	}
	cases := []struct {
		name    string
		leaving bool
		events  []any
		want    []string
	}{
		{"an alert", false, []any{open(page.DialogTypeAlert, "Saved")}, []string{`alert "Saved" dismissed`}},
		{"a confirm", false, []any{open(page.DialogTypeConfirm, "Delete 3 invoices?")}, []string{`confirm "Delete 3 invoices?" dismissed`}},
		{"a confirm during a navigate", true, []any{open(page.DialogTypeConfirm, "Sure?")}, []string{`confirm "Sure?" dismissed`}},
		{"a beforeunload", false, []any{open(page.DialogTypeBeforeunload, "")}, []string{`beforeunload "" dismissed`}},
		{"a beforeunload during a navigate", true, []any{open(page.DialogTypeBeforeunload, "")}, []string{`beforeunload "" accepted: the navigate leaves the page`}},
		{"another event", false, []any{&page.EventLoadEventFired{}}, nil},
		{"a long message", false, []any{open(page.DialogTypePrompt, strings.Repeat("é", 300))}, []string{`prompt "` + strings.Repeat("é", maxDialogText-1) + `…" dismissed`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &dialogs{} // no page: nothing answers the browser
			d.leave(c.leaving)
			for _, ev := range c.events {
				d.listener(ev)
			}
			got := d.take()
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("reported %q, want %q", got, c.want)
			}
			if again := d.take(); again != nil {
				t.Errorf("reported again: %q", again)
			}
		})
	}
	t.Run("a page that keeps asking", func(t *testing.T) {
		d := &dialogs{}
		for range schema.MaxDialogs + 5 {
			d.listener(open(page.DialogTypeAlert, "again"))
		}
		if got := d.take(); len(got) != schema.MaxDialogs {
			t.Errorf("%d dialogs reported, want %d", len(got), schema.MaxDialogs)
		}
	})
}
