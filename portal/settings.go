package portal

import (
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// timezones are the choices of the Timezone select.
var timezones = []string{"UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"}

// maxSiteTitle is the longest site title accepted, in characters.
const maxSiteTitle = 60

// settingsData is the data of /settings.
type settingsData struct {
	Settings     Settings
	Timezones    []choice
	TitleInvalid bool
}

// settingsView is the view of the settings form holding st.
func settingsView(st Settings, titleInvalid bool) view {
	d := settingsData{Settings: st, TitleInvalid: titleInvalid}
	for _, tz := range timezones {
		d.Timezones = append(d.Timezones, choice{Value: tz, Selected: tz == st.Timezone})
	}
	return view{Title: "Settings", Section: "/settings", Data: d}
}

// settings serves GET /settings with the saved values.
func (p *Portal) settings(w http.ResponseWriter, _ *http.Request, s *session) {
	p.render(w, s, http.StatusOK, "settings", settingsView(p.st.Settings, false))
}

// saveSettings serves POST /settings: a site title of 1 to 60 characters
// and a listed timezone are stored with the two checkboxes, and the form
// is shown again with the status "Settings saved". Problems show it with
// an alert and nothing stored.
func (p *Portal) saveSettings(w http.ResponseWriter, r *http.Request, s *session) {
	st := Settings{
		SiteTitle:          strings.TrimSpace(r.PostFormValue("site_title")),
		Timezone:           r.PostFormValue("timezone"),
		EmailNotifications: r.PostFormValue("email_notifications") != "",
		WeeklyDigest:       r.PostFormValue("weekly_digest") != "",
	}
	var problems []string
	titleInvalid := false
	switch n := utf8.RuneCountInString(st.SiteTitle); {
	case n == 0:
		problems, titleInvalid = append(problems, "Site title is required"), true
	case n > maxSiteTitle:
		problems, titleInvalid = append(problems, "Site title must be at most 60 characters"), true
	}
	if !slices.Contains(timezones, st.Timezone) {
		problems = append(problems, "Choose a timezone")
	}
	if len(problems) > 0 {
		v := settingsView(st, titleInvalid)
		v.Alert, v.Errors = "Please correct the following problems:", problems
		p.render(w, s, http.StatusOK, "settings", v)
		return
	}
	p.st.Settings = st
	v := settingsView(st, false)
	v.Status = "Settings saved"
	p.render(w, s, http.StatusOK, "settings", v)
}
