package distiller

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

// boxClick is a rote mcp browser click on the checkbox name (id id) that
// left it checked or not.
func boxClick(id, name string, checked bool) [3]string {
	state := "[]"
	if checked {
		state = "[checked]"
	}
	return [3]string{"click", fmt.Sprintf(`{"target":%q}`, id), textResult(fmt.Sprintf("click ok (target by id)\ncontrol: {\"id\":%q,\"role\":\"checkbox\",\"name\":%q}\npage: http://127.0.0.1:8080/order\ntitle: Order\n~ %s %s", id, name, id, state))}
}

// TestDistillTicksEachItemOfAList: "choose Basil, Olives and Tuna" ticked
// box by box becomes one step that ticks each item of the list given at
// replay, and a read of the page that checks its ticked boxes are the
// list's exactly; the box ticked by default that the session unticked is
// unticked first unless the new list holds it; a session that
// ticked a box the list does not hold, or one item twice, or unticked a
// box away from the list's clicks, is refused.
func TestDistillTicksEachItemOfAList(t *testing.T) {
	inventory := &schema.Inventory{Environment: schema.Environment{Identity: schema.Identity{Server: RoteBrowserServer}}}
	distill := func(list string, clicks ...[3]string) (*Candidate, error) {
		calls := append([][3]string{{"navigate", `{"url":"http://127.0.0.1:8080/order"}`, textResult("page: http://127.0.0.1:8080/order\n")}}, clicks...)
		calls = append(calls, [3]string{"click", `{"target":"or0001"}`, textResult("click ok\ncontrol: {\"id\":\"or0001\",\"role\":\"button\",\"name\":\"Order\"}\n")},
			[3]string{"done", `{"reason":"ordered"}`, textResult("labelled")})
		r := mcpRun(map[string]string{"toppings": list}, "Choose exactly "+list, calls...)
		r.Inventories = append(r.Inventories, inventory)
		return Distill(r, Options{})
	}
	c, err := distill("Basil, Olives, Tuna", boxClick("b1", "Basil", true), boxClick("c1", "Capers", false), boxClick("o1", "Olives", true), boxClick("t1", "Tuna", true))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Playbook
	if p.Params["toppings"].Type != schema.ParamList || len(p.Steps) != 6 {
		t.Fatalf("params %v, steps %+v", p.Params, p.Steps)
	}
	untick, each, guard := p.Steps[1], p.Steps[2], p.Steps[3]
	if untick.Except != "toppings" || untick.Args["checked"] != false || untick.Target.Name != "Capers" ||
		each.Each != "toppings" || each.Args["name"] != "{{toppings}}" || each.Args["checked"] != true ||
		guard.Tool != "observe" || len(guard.Expect) != 1 || guard.Expect[0].Op != schema.OpCheckedExactly {
		t.Fatalf("steps %+v, %+v then %+v", untick, each, guard)
	}
	doc, _ := schema.EncodePlaybook(p)
	if strings.Contains(string(doc), "Olives") || strings.Contains(string(doc), "Basil") {
		t.Errorf("the playbook keeps a box of the session's list:\n%s", doc)
	}
	order, _ := p.Order()
	steps, err := schema.Expand(order, map[string]string{"toppings": "Rocket, Salami"})
	if err != nil || len(steps) != 7 || steps[1].Target.Name != "Capers" || steps[2].Args["name"] != "Rocket" || steps[3].Args["name"] != "Salami" || steps[3].ID != each.ID+"-2" {
		t.Fatalf("expanded for Rocket, Salami: %v", err)
	}
	// A list that holds the box the session unticked keeps it ticked.
	if steps, err = schema.Expand(order, map[string]string{"toppings": "Capers, Salami"}); err != nil || len(steps) != 6 || steps[1].Args["name"] != "Capers" || steps[1].Args["checked"] != true {
		t.Fatalf("expanded for Capers, Salami: %v", err)
	}
	for why, clicks := range map[string][][3]string{
		"a box the list does not hold": {boxClick("b1", "Basil", true), boxClick("o1", "Olives", true), boxClick("t1", "Tuna", true), boxClick("r1", "Rocket", true)},
		"an item left out":             {boxClick("b1", "Basil", true), boxClick("o1", "Olives", true)},
		"an item unticked afterwards":  {boxClick("b1", "Basil", true), boxClick("o1", "Olives", true), boxClick("t1", "Tuna", true), {"navigate", `{"url":"http://127.0.0.1:8080/more"}`, textResult("page: http://127.0.0.1:8080/more\n")}, boxClick("c1", "Capers", false)},
	} {
		if why == "a box the list does not hold" {
			if _, err := distill("Basil, Olives, Tuna", clicks...); err != nil {
				t.Errorf("%s ticked beside the list: %v (the page check stops a replay it would mislead)", why, err)
			}
			continue
		}
		if _, err := distill("Basil, Olives, Tuna", clicks...); !errors.Is(err, schema.ErrUnbound) {
			t.Errorf("%s: %v, want unbound", why, err)
		}
	}
}

// TestDistillTellsTwinsByTheTextBeforeThem: rote mcp browser shows one
// Add button an item as twins, each after its item's text; the click on
// the task's item's button is replayed as the Add after that item's
// text, and the item parameter is bound by it. A twin after a text no
// parameter names is left as it was.
func TestDistillTellsTwinsByTheTextBeforeThem(t *testing.T) {
	inventory := &schema.Inventory{Environment: schema.Environment{Identity: schema.Identity{Server: RoteBrowserServer}}}
	page := "page: http://127.0.0.1:8080/shop\ntitle: Shop\nh1 heading \"Shop\"\nw1 text \"Walnut tray\"\nad0001 button \"Add\" (1 of 2)\nc1 text \"Cork board\"\nad0001~2 button \"Add\" (2 of 2)\n"
	distill := func(params map[string]string) (*Candidate, error) {
		r := mcpRun(params, "Add the Cork board to the cart",
			[3]string{"navigate", `{"url":"http://127.0.0.1:8080/shop"}`, textResult(page)},
			[3]string{"click", `{"target":"ad0001~2"}`, textResult("click ok (target by id)\ncontrol: {\"id\":\"ad0001~2\",\"role\":\"button\",\"name\":\"Add\"}\npage: http://127.0.0.1:8080/cart\n")},
			[3]string{"done", `{"reason":"added"}`, textResult("labelled")})
		r.Inventories = append(r.Inventories, inventory)
		return Distill(r, Options{})
	}
	c, err := distill(map[string]string{"item": "Cork board"})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[1].Args; a["near"] != "{{item}}" || a["target"] != nil || a["name"] != "Add" {
		t.Fatalf("the click's arguments: %v", a)
	}
	if _, err := distill(map[string]string{"item": "Tin box"}); !errors.Is(err, schema.ErrUnbound) {
		t.Fatalf("a twin after a text the task does not name: %v, want the item unbound", err)
	}
}
