package portal

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// categoryWords are the words that decide a message's category.
var categoryWords = map[string][]string{
	"Billing":   {"invoice", "refund", "charge"},
	"Technical": {"error", "crash", "bug"},
	"Account":   {"password", "log in", "login", "locked"},
	"Spam":      {"prize", "lottery", "click here"},
}

func TestExpectedCategoryAgreesWithBody(t *testing.T) {
	if len(messages) != 12 {
		t.Fatalf("%d messages", len(messages))
	}
	perCategory := map[string]int{}
	for i := 1; i <= 12; i++ {
		id := fmt.Sprintf("M-%02d", i)
		want, ok := ExpectedCategory(id)
		if !ok {
			t.Fatalf("ExpectedCategory(%s) unknown", id)
		}
		m, _ := findMessage(id)
		body := strings.ToLower(m.Body)
		var matched []string
		for cat, words := range categoryWords {
			for _, w := range words {
				if strings.Contains(body, w) {
					matched = append(matched, cat)
					break
				}
			}
		}
		if len(matched) != 1 || matched[0] != want {
			t.Errorf("%s: body %q points at %v, expected category %s", id, m.Body, matched, want)
		}
		perCategory[want]++
	}
	for _, c := range inboxCategories {
		if perCategory[c] != 3 {
			t.Errorf("%d messages of %s, want 3", perCategory[c], c)
		}
	}
	if _, ok := ExpectedCategory("M-13"); ok {
		t.Error("ExpectedCategory knows M-13")
	}
}

func TestInboxTriage(t *testing.T) {
	b := loggedIn(t, "")
	pg := b.get("/inbox")
	if n := tbodyRows(t, pg.body); n != 12 {
		t.Errorf("inbox has %d rows", n)
	}
	pg.mustContain(t, `<th scope="col">Subject</th>`, `<th scope="col">From</th>`, `<th scope="col">Received</th>`,
		`<a href="/inbox/M-04">Congratulations, you are a winner</a>`)

	for _, m := range messages {
		pg := b.get("/inbox/" + m.ID)
		pg.mustContain(t, "<h1>"+m.Subject+"</h1>", `<label for="category">Category</label>`,
			`<select id="category" name="category"`, `>File message</button>`,
			fmt.Sprintf(`<form method="post" action="/inbox/%s/triage"`, m.ID))
		if !strings.Contains(pg.body, strings.ReplaceAll(m.Body, "'", "&#39;")) {
			t.Errorf("%s: body text missing", m.ID)
		}
		pg = b.post("/inbox/"+m.ID+"/triage", url.Values{"category": {m.Category}})
		if pg.url != "/inbox" {
			t.Errorf("triage of %s went to %s", m.ID, pg.url)
		}
		pg.mustContain(t, `role="status"`, "Filed "+m.Subject+" as "+m.Category)
	}
	st := b.p.State()
	if len(st.Triage) != 12 {
		t.Errorf("Triage has %d entries", len(st.Triage))
	}
	for id, cat := range st.Triage {
		if want, _ := ExpectedCategory(id); cat != want {
			t.Errorf("Triage[%s] = %s, want %s", id, cat, want)
		}
	}
	// Refiling overwrites; the form shows the current category.
	b.post("/inbox/M-01/triage", url.Values{"category": {"Spam"}})
	if got := b.p.State().Triage["M-01"]; got != "Spam" {
		t.Errorf("refiled M-01 = %s", got)
	}
	b.get("/inbox/M-01").mustContain(t, "Currently filed as Spam.", `<option value="Spam" selected>Spam</option>`)
	b.get("/dashboard").mustContain(t, "<dt>Unfiled messages</dt><dd>0</dd>")
}

func TestInboxTriageNeedsACategory(t *testing.T) {
	b := loggedIn(t, "")
	for _, cat := range []string{"", "Urgent"} {
		pg := b.post("/inbox/M-02/triage", url.Values{"category": {cat}})
		if pg.url != "/inbox/M-02/triage" {
			t.Errorf("triage with %q went to %s", cat, pg.url)
		}
		pg.mustContain(t, `role="alert"`, "Choose a category to file the message", `aria-invalid="true"`)
	}
	if n := len(b.p.State().Triage); n != 0 {
		t.Errorf("invalid triage stored %d entries", n)
	}
}
