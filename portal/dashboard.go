package portal

import "net/http"

// dashboardData is the dashboard's summary.
type dashboardData struct {
	OpenRecords     int
	ArchivedRecords int
	Vendors         int
	UnfiledMessages int
	Reports         int
	LatestReport    report
}

// dashboard serves GET /dashboard: counts of what needs attention and
// links to each area.
func (p *Portal) dashboard(w http.ResponseWriter, _ *http.Request, s *session) {
	d := dashboardData{
		OpenRecords:     len(p.visibleRecords()),
		ArchivedRecords: len(p.st.Archived),
		Vendors:         len(p.st.Vendors),
		Reports:         len(p.reports),
		LatestReport:    p.reports[0],
	}
	for _, m := range messages {
		if _, filed := p.st.Triage[m.ID]; !filed {
			d.UnfiledMessages++
		}
	}
	p.render(w, s, http.StatusOK, "dashboard", view{Title: "Dashboard", Section: "/dashboard", Data: d})
}
