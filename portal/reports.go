package portal

import (
	"fmt"
	"net/http"
	"strings"
)

// reportList serves GET /reports: the published reports, newest first.
func (p *Portal) reportList(w http.ResponseWriter, _ *http.Request, s *session) {
	p.render(w, s, http.StatusOK, "reports", view{Title: "Reports", Section: "/reports", Data: reportsView{p.reports, p.st.Requested}})
}

// reportsView is what the Reports page shows: the reports, and the one
// the auditor asks for.
type reportsView struct {
	Reports   []report
	Requested string
}

// RequestReport makes the Reports page say that the auditor asks for the
// report titled title: which report a task "download the report the
// auditor asks for" means is on the page, and changes when this does.
// Reset takes it back.
func (p *Portal) RequestReport(title string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.Requested = title
}

// PublishReport publishes the next month's report at the top of the list
// and returns its id: the data a playbook learned on changes under it
// (the latest report is no longer the one it downloaded). Reset takes
// it back.
func (p *Portal) PublishReport() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	last := p.reports[0]
	year, month := last.year, last.month+1
	if month > 12 {
		year, month = year+1, 1
	}
	next := monthlyReport(year, month)
	p.reports = append([]report{next}, p.reports...)
	return next.ID
}

// reportCSV is the deterministic content of a report.
func reportCSV(r report) string {
	var b strings.Builder
	b.WriteString("report_id,period,metric,value\n")
	rows := []struct {
		metric string
		value  int
	}{
		{"orders", 1000 + r.month*137},
		{"revenue_usd", 40000 + r.month*2351},
		{"refunds", 3 + r.month%5},
		{"new_vendors", 1 + r.month%4},
		{"open_tickets", 20 - r.month},
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "%s,%s,%s,%d\n", r.ID, r.Period, row.metric, row.value)
	}
	return b.String()
}

// reportDownload serves GET /reports/{id}/download: the report as a CSV
// attachment named <id>.csv. Every download is recorded.
func (p *Portal) reportDownload(w http.ResponseWriter, r *http.Request, s *session) {
	rep, ok := p.findReport(r.PathValue("id"))
	if !ok {
		p.notFound(w, r, s)
		return
	}
	p.st.Downloads = append(p.st.Downloads, rep.ID)
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", rep.ID+".csv"))
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(reportCSV(rep)))
}
