package perception

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestVisibleText: the page's text is what a person can see or scroll
// to, not what innerText counts: an alert faded to opacity 0, a
// screen-reader label, text off the page, clipped away, transparent, of
// no size, scaled to nothing, a closed <details> and the options a select
// does not show are left out; text below the fold, in a shadow root, in a
// visible child of a hidden parent and the chosen option are in.
func TestVisibleText(t *testing.T) {
	t.Parallel()
	base := serve(t, map[string]string{"/": `<!doctype html><html><head><style>
		.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
		.fade:not(.show) { opacity: 0; }
	</style></head><body><main><h1>Checkout</h1>
		<div class="alert fade" role="alert">HIDDEN-faded</div>
		<div class="alert fade show" role="alert">SHOWN-declined</div>
		<p class="sr">HIDDEN-screenreader</p>
		<p style="position: absolute; left: -9999px">HIDDEN-offpage</p>
		<div style="height: 0; overflow: hidden">HIDDEN-clipped</div>
		<p style="color: transparent">HIDDEN-transparent</p>
		<p style="font-size: 0">HIDDEN-nosize</p>
		<p style="transform: scale(0)">HIDDEN-scaled</p>
		<details><summary>SHOWN-summary</summary><p>HIDDEN-details</p></details>
		<select aria-label="Plan"><option>SHOWN-chosen</option><option>HIDDEN-option</option></select>
		<div style="visibility: hidden">HIDDEN-invisible <span style="visibility: visible">SHOWN-child</span></div>
		<div id="host"></div>
		<p style="margin-top: 3000px">SHOWN-below</p>
	</main><script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<p>SHOWN-shadow</p>';</script></body></html>`})
	p := openPage(t, base+"/")
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	c, err := capturePage(ctx, p.frames, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range strings.Fields(c.text) {
		if strings.HasPrefix(w, "HIDDEN-") {
			t.Errorf("the text shows %s:\n%s", w, c.text)
		}
	}
	for _, want := range []string{"Checkout", "SHOWN-declined", "SHOWN-summary", "SHOWN-chosen", "SHOWN-child", "SHOWN-shadow", "SHOWN-below"} {
		if !strings.Contains(c.text, want) {
			t.Errorf("the text lacks %s:\n%s", want, c.text)
		}
	}
}
