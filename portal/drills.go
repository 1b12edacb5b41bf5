package portal

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// A drill is a task page whose instruction changes with its seed: the
// button to press, the date and the quantity to set and the item to pick
// are all drawn from the seed, and so are the buttons and items offered
// and their order. A playbook learned on one drill and replayed on
// another must act on what the new instruction says, or stop.
//
// GET /drills/{seed} shows the instruction and the buttons; pressing one
// (POST /drills/{seed}/press) leads to the form for the date, the
// quantity and the item; submitting it (POST /drills/{seed}) records a
// DrillAnswer, right or wrong, and says "Drill N submitted".

// Drill is what the drill of a seed asks for, and what it offers.
type Drill struct {
	Seed     int
	Button   string   // the button to press
	Date     string   // YYYY-MM-DD
	Quantity string   // 1 to 99
	Item     string   // the item to pick
	Buttons  []string // the buttons offered, in page order
	Items    []string // the items offered, in page order
}

// DrillAnswer is one submitted drill: what was pressed, set and picked.
type DrillAnswer struct {
	Seed     int    `json:"seed"`
	Pressed  string `json:"pressed"`
	Date     string `json:"date"`
	Quantity string `json:"quantity"`
	Item     string `json:"item"`
}

// Right reports whether a did what its drill asked.
func (a DrillAnswer) Right() bool {
	d := DrillFor(a.Seed)
	return a.Pressed == d.Button && a.Date == d.Date && a.Quantity == d.Quantity && a.Item == d.Item
}

var (
	drillButtons = []string{"Amber", "Birch", "Cedar", "Delta", "Ember", "Fjord", "Garnet", "Harbor", "Indigo", "Juniper", "Kestrel", "Lumen"}
	drillItems   = []string{"Apricot", "Blueberry", "Cherry", "Damson", "Elderberry", "Fig", "Guava", "Kiwi", "Lychee", "Mango", "Nectarine", "Papaya"}
)

// DrillFor returns the drill of seed, the same every time.
func DrillFor(seed int) Drill {
	r := rand.New(rand.NewPCG(uint64(seed), 0x0d7111))
	pick := func(pool []string, n int) []string {
		out := slices.Clone(pool)
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out[:n]
	}
	d := Drill{Seed: seed, Buttons: pick(drillButtons, 5), Items: pick(drillItems, 6)}
	d.Button, d.Item = d.Buttons[r.IntN(len(d.Buttons))], d.Items[r.IntN(len(d.Items))]
	d.Date = fmt.Sprintf("2026-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28))
	d.Quantity = strconv.Itoa(1 + r.IntN(99))
	return d
}

// Instruction is the drill's instruction as its page states it.
func (d Drill) Instruction() string {
	return fmt.Sprintf("Press “%s”, then set the date to %s and the quantity to %s, pick %s and submit.", d.Button, d.Date, d.Quantity, d.Item)
}

// drillView is what the drill templates show.
type drillView struct {
	Drill   Drill
	Pressed string
}

// drillOf returns the drill the request's path names, or answers 404.
func (p *Portal) drillOf(w http.ResponseWriter, r *http.Request, s *session) (Drill, bool) {
	seed, err := strconv.Atoi(r.PathValue("seed"))
	if err != nil || seed < 1 || seed >= 1_000_000 {
		p.notFound(w, r, s)
		return Drill{}, false
	}
	return DrillFor(seed), true
}

// drillPage serves GET /drills/{seed}: the instruction and the buttons.
func (p *Portal) drillPage(w http.ResponseWriter, r *http.Request, s *session) {
	if d, ok := p.drillOf(w, r, s); ok {
		p.render(w, s, http.StatusOK, "drill", view{Title: fmt.Sprintf("Drill %d", d.Seed), Data: drillView{Drill: d}})
	}
}

// drillPress serves POST /drills/{seed}/press: the button pressed, then
// the form for the rest.
func (p *Portal) drillPress(w http.ResponseWriter, r *http.Request, s *session) {
	d, ok := p.drillOf(w, r, s)
	if !ok {
		return
	}
	pressed := r.PostFormValue("button")
	if !slices.Contains(d.Buttons, pressed) {
		p.render(w, s, http.StatusBadRequest, "drill", view{Title: fmt.Sprintf("Drill %d", d.Seed), Alert: "Press one of the buttons", Data: drillView{Drill: d}})
		return
	}
	p.render(w, s, http.StatusOK, "drill_form", view{Title: fmt.Sprintf("Drill %d", d.Seed), Status: "Pressed " + pressed, Data: drillView{Drill: d, Pressed: pressed}})
}

// drillSubmit serves POST /drills/{seed}: the answer is recorded as sent.
func (p *Portal) drillSubmit(w http.ResponseWriter, r *http.Request, s *session) {
	d, ok := p.drillOf(w, r, s)
	if !ok {
		return
	}
	a := DrillAnswer{Seed: d.Seed, Pressed: r.PostFormValue("pressed"), Date: strings.TrimSpace(r.PostFormValue("date")),
		Quantity: strings.TrimSpace(r.PostFormValue("quantity")), Item: r.PostFormValue("item")}
	p.st.Drills = append(p.st.Drills, a)
	s.flash = fmt.Sprintf("Drill %d submitted", d.Seed)
	http.Redirect(w, r, fmt.Sprintf("/drills/%d", d.Seed), http.StatusSeeOther)
}
