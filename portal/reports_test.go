package portal

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestReportsList(t *testing.T) {
	b := loggedIn(t, "")
	pg := b.get("/reports")
	if n := tbodyRows(t, pg.body); n != 6 {
		t.Errorf("%d reports", n)
	}
	first := strings.Index(pg.body, "November 2026")
	last := strings.Index(pg.body, "June 2026")
	if first < 0 || last < first {
		t.Error("reports are not newest first")
	}
	for _, id := range []string{"RPT-2026-06", "RPT-2026-07", "RPT-2026-08", "RPT-2026-09", "RPT-2026-10", "RPT-2026-11"} {
		r, ok := b.p.findReport(id)
		if !ok {
			t.Fatalf("no report %s", id)
		}
		pg.mustContain(t, `<a href="/reports/`+id+`/download" aria-label="Download `+r.Title+`"`)
	}
	pg.mustContain(t, `aria-label="Download Operations report November 2026"`)
}

func TestReportDownload(t *testing.T) {
	b := loggedIn(t, "")
	pg := b.get("/reports/RPT-2026-11/download")
	if pg.status != http.StatusOK {
		t.Fatalf("download: %d", pg.status)
	}
	if ct := pg.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := pg.header.Get("Content-Disposition"); cd != `attachment; filename="RPT-2026-11.csv"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	lines := strings.Split(strings.TrimSpace(pg.body), "\n")
	if lines[0] != "report_id,period,metric,value" || len(lines) != 6 {
		t.Errorf("csv:\n%s", pg.body)
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "RPT-2026-11,November 2026,") || strings.Count(l, ",") != 3 {
			t.Errorf("csv row %q", l)
		}
	}
	b.get("/reports/RPT-2026-06/download")
	b.get("/reports/RPT-2026-11/download")
	b.get("/reports/RPT-2020-01/download")
	if got, want := b.p.State().Downloads, []string{"RPT-2026-11", "RPT-2026-06", "RPT-2026-11"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Downloads = %v, want %v", got, want)
	}
}

// TestPublishReport: a newer report goes to the top of the list, can be
// downloaded, rolls the year over, and Reset takes it back.
func TestPublishReport(t *testing.T) {
	b := loggedIn(t, "")
	if id := b.p.PublishReport(); id != "RPT-2026-12" {
		t.Fatalf("published %s, want RPT-2026-12", id)
	}
	if id := b.p.PublishReport(); id != "RPT-2027-01" {
		t.Fatalf("published %s, want RPT-2027-01", id)
	}
	pg := b.get("/reports")
	jan, dec, nov := strings.Index(pg.body, "January 2027"), strings.Index(pg.body, "December 2026"), strings.Index(pg.body, "November 2026")
	if jan < 0 || dec < jan || nov < dec {
		t.Errorf("the published reports are not newest first (January 2027 at %d, December 2026 at %d, November 2026 at %d)", jan, dec, nov)
	}
	pg.mustContain(t, `<time datetime="2027-02-01">`)
	if pg := b.get("/reports/RPT-2027-01/download"); pg.status != http.StatusOK || !strings.HasPrefix(strings.Split(pg.body, "\n")[1], "RPT-2027-01,January 2027,") {
		t.Errorf("download of the published report: %d %q", pg.status, pg.body)
	}
	b.p.Reset()
	b = loggedIn(t, "")
	if pg := b.get("/reports/RPT-2027-01/download"); pg.status != http.StatusNotFound {
		t.Errorf("after Reset the published report still downloads: %d", pg.status)
	}
}

// TestRequestReport: the Reports page says which report the auditor asks
// for, only once one is asked for, and Reset takes the request back.
func TestRequestReport(t *testing.T) {
	b := loggedIn(t, "")
	if pg := b.get("/reports"); strings.Contains(pg.body, "auditor") {
		t.Fatalf("a request shown before any was made")
	}
	b.p.RequestReport("Operations report August 2026")
	b.get("/reports").mustContain(t, "<p>The auditor asks for Operations report August 2026.</p>")
	if got := b.p.State().Requested; got != "Operations report August 2026" {
		t.Errorf("Requested = %q", got)
	}
	b.p.Reset()
	if got := b.p.State().Requested; got != "" {
		t.Errorf("after Reset, Requested = %q", got)
	}
}
