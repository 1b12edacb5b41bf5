package portal

import (
	"net/url"
	"strings"
	"testing"
)

// TestDrillsDifferBySeed: each seed asks for its own button, date,
// quantity and item, offered among others in its own order; the same
// seed asks the same every time.
func TestDrillsDifferBySeed(t *testing.T) {
	seen := map[string]bool{}
	for seed := 100; seed < 132; seed++ {
		d := DrillFor(seed)
		if again := DrillFor(seed); again.Instruction() != d.Instruction() || strings.Join(again.Buttons, ",") != strings.Join(d.Buttons, ",") {
			t.Fatalf("seed %d is not deterministic", seed)
		}
		if len(d.Buttons) != 5 || len(d.Items) != 6 || d.Quantity == "" || len(d.Date) != len("2026-01-01") {
			t.Fatalf("drill %+v", d)
		}
		seen[d.Button+d.Date+d.Quantity+d.Item] = true
	}
	if len(seen) < 30 {
		t.Errorf("32 seeds gave %d distinct drills", len(seen))
	}
}

// TestDrillRecordsTheAnswer walks a drill: the instruction on the page,
// a button pressed, the form sent; the answer is recorded as sent and
// graded against the seed's drill.
func TestDrillRecordsTheAnswer(t *testing.T) {
	b := loggedIn(t, "")
	d := DrillFor(417)
	pg := b.get("/drills/417")
	pg.mustContain(t, "<h1>Drill 417</h1>")
	pg.mustContain(t, d.Instruction())
	for _, label := range d.Buttons {
		pg.mustContain(t, `value="`+label+`"`)
	}
	pg = b.post("/drills/417/press", url.Values{"button": {"Nope"}})
	pg.mustContain(t, "Press one of the buttons")
	pg = b.post("/drills/417/press", url.Values{"button": {d.Button}})
	pg.mustContain(t, "Pressed "+d.Button)
	pg.mustContain(t, `name="pressed" value="`+d.Button+`"`)
	pg = b.post("/drills/417", url.Values{"pressed": {d.Button}, "date": {d.Date}, "quantity": {d.Quantity}, "item": {d.Item}})
	pg.mustContain(t, "Drill 417 submitted")
	b.post("/drills/417", url.Values{"pressed": {d.Button}, "date": {d.Date}, "quantity": {"0"}, "item": {d.Item}})
	got := b.p.State().Drills
	if len(got) != 2 || !got[0].Right() || got[1].Right() {
		t.Fatalf("answers %+v", got)
	}
	if pg := b.get("/drills/x"); pg.status != 404 {
		t.Errorf("/drills/x: %d", pg.status)
	}
}
