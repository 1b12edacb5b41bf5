package portal

import (
	"net/url"
	"strings"
	"testing"
)

func TestSettingsSave(t *testing.T) {
	b := loggedIn(t, "")
	pg := b.get("/settings")
	pg.mustContain(t, `<label for="site-title">Site title</label>`, `value="Acme Operations"`,
		`<label for="timezone">Timezone</label>`, `<option value="UTC" selected>UTC</option>`,
		`<option value="Asia/Tokyo">Asia/Tokyo</option>`,
		`id="email-notifications" name="email_notifications" value="on" checked>`,
		`<label for="email-notifications">Email notifications</label>`,
		`id="weekly-digest" name="weekly_digest" value="on">`, `<label for="weekly-digest">Weekly digest</label>`,
		`>Save settings</button>`)
	pg.mustNotContain(t, `role="status"`)

	pg = b.post("/settings", url.Values{"site_title": {"  Globex Back Office "}, "timezone": {"Europe/Berlin"}, "weekly_digest": {"on"}})
	if pg.url != "/settings" {
		t.Errorf("save went to %s", pg.url)
	}
	pg.mustContain(t, `<div role="status"`, "Settings saved", `value="Globex Back Office"`,
		`<option value="Europe/Berlin" selected>`, `id="weekly-digest" name="weekly_digest" value="on" checked>`,
		`<a href="/dashboard">Globex Back Office</a>`, "<title>Settings | Globex Back Office</title>")
	pg.mustNotContain(t, `name="email_notifications" value="on" checked`)
	want := Settings{SiteTitle: "Globex Back Office", Timezone: "Europe/Berlin", EmailNotifications: false, WeeklyDigest: true}
	if got := b.p.State().Settings; got != want {
		t.Errorf("Settings = %+v, want %+v", got, want)
	}
	b.get("/settings").mustNotContain(t, "Settings saved")
}

func TestSettingsValidation(t *testing.T) {
	b := loggedIn(t, "")
	for _, f := range []url.Values{
		{"site_title": {" "}, "timezone": {"UTC"}},
		{"site_title": {strings.Repeat("x", 61)}, "timezone": {"UTC"}},
		{"site_title": {"Fine"}, "timezone": {"Mars/Olympus"}},
	} {
		pg := b.post("/settings", f)
		pg.mustContain(t, `role="alert"`)
		pg.mustNotContain(t, "Settings saved")
	}
	if got := b.p.State().Settings; got != seedState().Settings {
		t.Errorf("invalid saves changed settings: %+v", got)
	}
}
