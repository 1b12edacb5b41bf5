package portal

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// tbodyRows counts the rows of the page's table body.
func tbodyRows(t *testing.T, body string) int {
	t.Helper()
	tbody, ok := element(body, "tbody")
	if !ok {
		t.Fatal("no <tbody>")
	}
	return count(tbody, "<tr>")
}

func TestRecordsSeed(t *testing.T) {
	if len(records) != 120 || records[0].ID != "R-1001" || records[119].ID != "R-1120" {
		t.Fatalf("records: %d, %s..%s", len(records), records[0].ID, records[len(records)-1].ID)
	}
	names := map[string]bool{}
	statuses := map[string]int{}
	for _, r := range records {
		if names[r.Name] {
			t.Errorf("duplicate record name %q", r.Name)
		}
		names[r.Name] = true
		statuses[r.Status]++
		if !regexp.MustCompile(`^\$[0-9]{1,3}(,[0-9]{3})*\.[0-9]{2}$`).MatchString(r.Amount()) {
			t.Errorf("amount %q", r.Amount())
		}
	}
	for _, s := range []string{"Active", "Pending", "Closed"} {
		if statuses[s] == 0 {
			t.Errorf("no %s records", s)
		}
	}
	if got := money(123456789); got != "$1,234,567.89" {
		t.Errorf("money = %s", got)
	}
	if got := money(5); got != "$0.05" {
		t.Errorf("money = %s", got)
	}
}

func TestRecordsPaging(t *testing.T) {
	b := loggedIn(t, "")
	pg := b.get("/records")
	if n := tbodyRows(t, pg.body); n != 100 {
		t.Errorf("page 1 has %d rows, want 100", n)
	}
	pg.mustContain(t, `<th scope="col">Name</th>`, `<th scope="col">Status</th>`, `<th scope="col">Owner</th>`,
		`<th scope="col" class="num">Amount</th>`, `<th scope="col">Actions</th>`,
		`<nav aria-label="Pagination"`, `<a href="/records?page=2" rel="next">Next</a>`,
		`<a href="/records?page=1" aria-current="page">1</a>`, "Showing 1 to 100 of 120 records.")
	first := records[0]
	pg.mustContain(t,
		fmt.Sprintf(`<input type="checkbox" name="selected" value="R-1001" aria-label="Select %s">`, first.Name),
		fmt.Sprintf(`<a href="/records/R-1001">%s</a>`, first.Name),
		`<a href="/records/R-1001/edit">Edit</a>`,
		`<form method="post" action="/records/R-1001/archive"`, `>Archive</button>`)
	pg.mustNotContain(t, "R-1101")

	pg = b.get("/records?page=2")
	if n := tbodyRows(t, pg.body); n != 20 {
		t.Errorf("page 2 has %d rows, want 20", n)
	}
	pg.mustContain(t, `<a href="/records?page=1" rel="prev">Previous</a>`, "R-1101", "R-1120", "Showing 101 to 120 of 120 records.")
	pg.mustNotContain(t, `"/records/R-1100"`)
	if b.get("/records?page=1").body != b.get("/records").body {
		t.Error("/records and /records?page=1 differ")
	}
	for _, q := range []string{"?page=0", "?page=-3", "?page=x"} {
		if n := tbodyRows(t, b.get("/records"+q).body); n != 100 {
			t.Errorf("/records%s has %d rows, want page 1", q, n)
		}
	}
	if n := tbodyRows(t, b.get("/records?page=9").body); n != 20 {
		t.Errorf("/records?page=9 has %d rows, want the last page", n)
	}
}

func TestRecordsArchive(t *testing.T) {
	b := loggedIn(t, "")
	target := records[1] // R-1002
	pg := b.post("/records/R-1002/archive", url.Values{"page": {"1"}})
	if pg.url != "/records" {
		t.Fatalf("archive went to %s", pg.url)
	}
	pg.mustContain(t, `role="status"`, "Archived "+target.Name)
	pg.mustNotContain(t, `"/records/R-1002"`)
	if n := tbodyRows(t, pg.body); n != 100 {
		t.Errorf("page 1 after archiving has %d rows, want 100 (one moved up)", n)
	}
	pg.mustContain(t, `"/records/R-1101"`, "Showing 1 to 100 of 119 records.")

	pg = b.post("/records/R-1115/archive", url.Values{"page": {"2"}})
	if pg.url != "/records?page=2" {
		t.Fatalf("archive from page 2 went to %s", pg.url)
	}
	if n := tbodyRows(t, pg.body); n != 18 {
		t.Errorf("page 2 after two archives has %d rows, want 18", n)
	}
	// Archiving again does not duplicate.
	b.post("/records/R-1002/archive", nil)
	if got := b.p.State().Archived; strings.Join(got, ",") != "R-1002,R-1115" {
		t.Errorf("Archived = %v", got)
	}
	// The detail page still exists and says so; the flash is gone.
	pg = b.get("/records/R-1002")
	pg.mustContain(t, "<h1>"+target.Name+"</h1>", "This record is archived.")
	pg.mustNotContain(t, `role="status"`, `>Archive</button>`)
	b.get("/dashboard").mustContain(t, "<dt>Open records</dt><dd>118</dd>", "<dt>Archived records</dt><dd>2</dd>")
	if pg := b.post("/records/R-0001/archive", nil); pg.status != 404 {
		t.Errorf("archiving an unknown record: %d", pg.status)
	}
}

func TestRecordDetailAndEdit(t *testing.T) {
	b := loggedIn(t, "")
	r := records[4]
	pg := b.get("/records/" + r.ID)
	pg.mustContain(t, "<h1>"+r.Name+"</h1>", "<dt>Record ID</dt><dd>"+r.ID+"</dd>", "<dt>Status</dt><dd>"+r.Status+"</dd>",
		"<dt>Owner</dt><dd>"+r.Owner+"</dd>", "<dt>Amount</dt><dd>"+r.Amount()+"</dd>", `>Archive</button>`)
	b.get("/records/"+r.ID+"/edit").mustContain(t, "<h1>Edit "+r.Name+"</h1>")
}
