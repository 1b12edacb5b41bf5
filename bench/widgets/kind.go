package widgets

import (
	"fmt"
	"hash/fnv"
	"html"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
)

// Kind is one kind of task page, drawn anew from each seed.
type Kind struct {
	Name  string
	Title string
	// Refusable kinds draw, on some seeds (those ending in 2), an
	// instance that asks for what its page does not offer: stopping is
	// the right outcome there, and anything sent is wrong.
	Refusable bool
	draw      func(d *dice, offered bool) Instance
}

// Instance is one seed's page of a kind, its task and its ground truth.
type Instance struct {
	Task   string                  // the task in words
	Params []Param                 // its values, as the task states them
	Page   func(url.Values) string // the page's body, given its query
	Next   string                  // a wizard's second page, after POST next
	Want   url.Values              // what a right answer sends; nil when the task cannot be done
	Steps  []Step                  // how a person does it, through either server
}

// Param is one of a task's values.
type Param struct {
	Name, Value string
	Secret      bool
}

// Doable reports whether the instance's task can be done on its page.
func (in Instance) Doable() bool { return in.Want != nil }

// Step is one thing a person does, named as each server shows it.
type Step struct {
	Do        string // open (Value is the path), fill, set, select, click, press (Value is the key), wait (for Value to show)
	Role      string // the control's role as rote mcp browser shows it
	PWRole    string // as @playwright/mcp shows it, when that differs
	Name      string // its name
	PWUnnamed bool   // @playwright/mcp shows it with no name (its label is not tied to it)
	Near      string // a text on its line or on a line above it (its row)
	PWNth     int    // among unnamed controls of its role in @playwright/mcp's snapshot, the nth (from 0)
	Value     string
}

// Instance returns seed's instance of k.
func (k Kind) Instance(seed int) Instance {
	h := fnv.New64a()
	h.Write([]byte(k.Name))
	d := &dice{rand.New(rand.NewPCG(uint64(seed), h.Sum64()))}
	offered := !k.Refusable || seed%10 != 2
	in := k.draw(d, offered)
	if !offered {
		in.Want = nil
	}
	return in
}

// Kinds are the suite's kinds, in the order it reports them.
func Kinds() []Kind {
	return slices.Concat(fieldKinds, choiceKinds, widgetKinds)
}

// Lookup returns the kind named name.
func Lookup(name string) (Kind, bool) {
	for _, k := range Kinds() {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// dice draws an instance's values.
type dice struct{ *rand.Rand }

// some returns n of pool, shuffled.
func (d *dice) some(pool []string, n int) []string {
	out := slices.Clone(pool)
	d.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:n]
}

func (d *dice) one(pool []string) string { return pool[d.IntN(len(pool))] }

// offer draws the n items of pool a page shows and the one its task asks
// for: one of them, or when it is not offered, one of pool they leave out.
func (d *dice) offer(pool []string, n int, offered bool) (shown []string, chosen string) {
	shown = d.some(pool, n)
	chosen = shown[d.IntN(len(shown))]
	if !offered {
		for _, p := range pool {
			if !slices.Contains(shown, p) {
				chosen = p
			}
		}
	}
	return shown, chosen
}

// coin is true half the time.
func (d *dice) coin() bool { return d.IntN(2) == 0 }

// field is a labelled input, its label tied to it one of two ways.
func (d *dice) field(label, name, typ, extra string) string {
	id := fmt.Sprintf("f%d", d.IntN(1e6))
	if d.coin() {
		return fmt.Sprintf(`<p><label>%s <input type="%s" name="%s"%s></label></p>`, esc(label), typ, name, extra)
	}
	return fmt.Sprintf(`<p><label for="%s">%s</label> <input id="%s" type="%s" name="%s"%s></p>`, id, esc(label), id, typ, name, extra)
}

// decoys are zero to two optional fields a right answer leaves empty,
// added to want.
func (d *dice) decoys(want url.Values) string {
	var b strings.Builder
	for _, f := range d.some([]string{"Reference", "Comment", "Coupon"}, d.IntN(3)) {
		name := strings.ToLower(f)
		b.WriteString(d.field(f+" (optional)", name, "text", ""))
		want[name] = []string{""}
	}
	return b.String()
}

// form wraps body in the kind's form, with its submit button.
func form(kind, body, button string) string {
	return fmt.Sprintf(`<form method="post" action="/w/%s/submit">
%s
<p><button>%s</button></p>
</form>`, kind, body, esc(button))
}

func static(body string) func(url.Values) string { return func(url.Values) string { return body } }

func esc(s string) string { return html.EscapeString(s) }

// open, fill, click and the rest are the steps a demonstration takes.
func open(kind string) Step { return Step{Do: "open", Value: "/w/" + kind} }

func fill(role, name, value string) Step {
	return Step{Do: "fill", Role: role, Name: name, Value: value}
}

func click(role, name string) Step { return Step{Do: "click", Role: role, Name: name} }

var ordinals = []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"}
