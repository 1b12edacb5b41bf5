package portal

import (
	"net/http"
	"slices"
	"strconv"
)

// recordsPerPage is the page size of /records.
const recordsPerPage = 100

// recordsData is the data of one page of /records.
type recordsData struct {
	Rows        []record
	Page, Pages int
	First, Last int // 1-based positions of the first and last row shown
	Total       int
	Prev, Next  int // 0 when there is no such page
	PageNumbers []pageNumber
}

// pageNumber is one numbered link of the pagination.
type pageNumber struct {
	N       int
	Current bool
}

// visibleRecords returns the records not archived, in seed order.
func (p *Portal) visibleRecords() []record {
	var out []record
	for _, r := range records {
		if !p.archived(r.ID) {
			out = append(out, r)
		}
	}
	return out
}

// archived reports whether the record id has been archived.
func (p *Portal) archived(id string) bool {
	return slices.Contains(p.st.Archived, id)
}

// recordList serves GET /records?page=N. A missing, malformed or out of
// range page shows the nearest page.
func (p *Portal) recordList(w http.ResponseWriter, r *http.Request, s *session) {
	rows := p.visibleRecords()
	d := recordsData{Total: len(rows)}
	d.Pages = max(1, (len(rows)+recordsPerPage-1)/recordsPerPage)
	d.Page, _ = strconv.Atoi(r.URL.Query().Get("page"))
	d.Page = min(max(d.Page, 1), d.Pages)
	start := (d.Page - 1) * recordsPerPage
	end := min(start+recordsPerPage, len(rows))
	d.Rows = rows[start:end]
	if len(d.Rows) > 0 {
		d.First, d.Last = start+1, end
	}
	if d.Page > 1 {
		d.Prev = d.Page - 1
	}
	if d.Page < d.Pages {
		d.Next = d.Page + 1
	}
	for n := 1; n <= d.Pages; n++ {
		d.PageNumbers = append(d.PageNumbers, pageNumber{N: n, Current: n == d.Page})
	}
	p.render(w, s, http.StatusOK, "records", view{Title: "Records", Section: "/records", Data: d})
}

// recordData is the data of a record's detail and edit pages.
type recordData struct {
	Record   record
	Archived bool
}

// recordFor returns the record named by the path, or serves the 404 page.
func (p *Portal) recordFor(w http.ResponseWriter, r *http.Request, s *session) (record, bool) {
	rec, ok := findRecord(r.PathValue("id"))
	if !ok {
		p.notFound(w, r, s)
	}
	return rec, ok
}

// recordDetail serves GET /records/{id}.
func (p *Portal) recordDetail(w http.ResponseWriter, r *http.Request, s *session) {
	rec, ok := p.recordFor(w, r, s)
	if !ok {
		return
	}
	p.render(w, s, http.StatusOK, "record", view{Title: rec.Name, Section: "/records",
		Data: recordData{Record: rec, Archived: p.archived(rec.ID)}})
}

// recordEdit serves GET /records/{id}/edit, a read-only notice: records
// are not editable in this portal.
func (p *Portal) recordEdit(w http.ResponseWriter, r *http.Request, s *session) {
	rec, ok := p.recordFor(w, r, s)
	if !ok {
		return
	}
	p.render(w, s, http.StatusOK, "record_edit", view{Title: "Edit " + rec.Name, Section: "/records",
		Data: recordData{Record: rec, Archived: p.archived(rec.ID)}})
}

// recordArchive serves POST /records/{id}/archive: the record is archived
// (once) and the browser goes back to the records page it came from (the
// form's page field) with the status "Archived <name>".
func (p *Portal) recordArchive(w http.ResponseWriter, r *http.Request, s *session) {
	rec, ok := p.recordFor(w, r, s)
	if !ok {
		return
	}
	if !p.archived(rec.ID) {
		p.st.Archived = append(p.st.Archived, rec.ID)
	}
	s.flash = "Archived " + rec.Name
	target := "/records"
	if n, err := strconv.Atoi(r.PostFormValue("page")); err == nil && n > 1 {
		target += "?page=" + strconv.Itoa(n)
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}
