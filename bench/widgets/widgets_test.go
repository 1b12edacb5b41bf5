package widgets

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestInstancesDifferBySeed checks what the suite's measure rests on:
// every kind draws a page and values from its seed, the same each time,
// other ones on other seeds; a refusable kind asks for what its page
// does not offer on the seeds ending in 2 and only there; and every
// value a task states is one of its parameters.
func TestInstancesDifferBySeed(t *testing.T) {
	if n := len(Kinds()); n < 20 {
		t.Fatalf("%d kinds, want about twenty", n)
	}
	for _, k := range Kinds() {
		pages := map[string]bool{}
		for seed := 100; seed < 120; seed++ {
			in := k.Instance(seed)
			again := k.Instance(seed)
			if in.Page(url.Values{}) != again.Page(url.Values{}) || in.Task != again.Task {
				t.Errorf("%s seed %d: drawn twice, it differs", k.Name, seed)
			}
			query := url.Values{}
			if len(in.Params) > 0 {
				query.Set("q", in.Params[0].Value) // a search page's results
			}
			pages[in.Page(query)+in.Task] = true
			if want := !k.Refusable || seed%10 != 2; in.Doable() != want {
				t.Errorf("%s seed %d: doable %t, want %t", k.Name, seed, in.Doable(), want)
			}
			for _, p := range in.Params {
				if !p.Secret && !strings.Contains(in.Task, p.Value) {
					t.Errorf("%s seed %d: the task %q does not state its parameter %s=%q", k.Name, seed, in.Task, p.Name, p.Value)
				}
			}
			if len(in.Steps) < 2 && in.Doable() || in.Steps[0].Do != "open" {
				t.Errorf("%s seed %d: a demonstration opens the page and acts: %+v", k.Name, seed, in.Steps)
			}
		}
		if len(pages) < 10 {
			t.Errorf("%s: only %d different instances in 20 seeds", k.Name, len(pages))
		}
	}
}

// TestSiteKeepsWhatWasSent checks the ground truth's side: the page
// served is the seed's, an answer is kept, a wizard's first step joins
// its second, and Right wants exactly one answer with the wanted values.
func TestSiteKeepsWhatWasSent(t *testing.T) {
	site := NewSite()
	srv := httptest.NewServer(site)
	defer srv.Close()
	k, _ := Lookup("wizard")
	site.Use("wizard", 103)
	in := k.Instance(103)
	res, err := http.Get(srv.URL + "/w/wizard")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), "Full name") {
		t.Fatalf("the wizard's first page:\n%s", body)
	}
	name, plan := in.Params[0].Value, in.Params[1].Value
	if _, err := http.PostForm(srv.URL+"/w/wizard/next", url.Values{"name": {name}}); err != nil {
		t.Fatal(err)
	}
	if _, err := http.PostForm(srv.URL+"/w/wizard/submit", url.Values{"plan": {plan}}); err != nil {
		t.Fatal(err)
	}
	if sent := site.Sent("wizard"); !in.Right(sent) {
		t.Fatalf("sent %v, want %v", sent, in.Want)
	}
	if _, err := http.PostForm(srv.URL+"/w/wizard/submit", url.Values{"plan": {plan}}); err != nil {
		t.Fatal(err)
	}
	if in.Right(site.Sent("wizard")) {
		t.Fatal("two answers counted as right")
	}
	site.Use("wizard", 103)
	wrong := url.Values{"name": {name}, "plan": {plan + "x"}}
	if in.Right([]url.Values{wrong}) || len(site.Sent("wizard")) != 0 {
		t.Fatal("a wrong plan counted as right, or Use kept the answers")
	}
	set, _ := Lookup("checkbox-set")
	sin := set.Instance(101)
	if !sin.Right([]url.Values{{"topping": reversed(sin.Want["topping"])}}) || sin.Right([]url.Values{{"topping": sin.Want["topping"][1:]}}) {
		t.Fatal("a set is right in any order, and only whole")
	}
	if set.Instance(102).Right([]url.Values{{"topping": sin.Want["topping"]}}) {
		t.Fatal("an answer to a task that cannot be done counted as right")
	}
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}
