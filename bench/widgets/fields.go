package widgets

import (
	"fmt"
	"net/url"
	"strings"
)

// fieldKinds take typed values: in fields named only by the text beside
// them, and in another form than the task writes them.
var fieldKinds = []Kind{
	{Name: "unlabelled-login", Title: "Sign in", draw: unlabelledLogin},
	{Name: "date-mdy", Title: "Delivery", draw: dateMDY},
	{Name: "date-long", Title: "Booking", draw: dateLong},
	{Name: "time-12h", Title: "Meeting", draw: time12h},
	{Name: "amount", Title: "Payment", draw: amount},
	{Name: "voucher", Title: "Voucher", draw: voucher},
	{Name: "slider", Title: "Sound", draw: slider},
}

var users = []string{"ada", "grace", "edsger", "barbara", "donald", "frances", "alan", "margaret", "ken", "radia"}

// unlabelledLogin: labels beside their fields, tied by nothing.
func unlabelledLogin(d *dice, _ bool) Instance {
	user := fmt.Sprintf("%s%d", d.one(users), 10+d.IntN(90))
	pass := fmt.Sprintf("pw-%d-%s", d.IntN(1e5), d.one(users))
	want := url.Values{"user": {user}, "pass": {pass}, "remember": {""}}
	wrap := d.one([]string{"div", "p", "li"})
	row := func(label, input string) string {
		return fmt.Sprintf("<%s><span>%s</span> %s</%[1]s>", wrap, label, input)
	}
	body := row("Username", `<input name="user" autocomplete="off">`) + "\n" + row("Password", `<input name="pass" type="password">`)
	if d.coin() {
		body += "\n" + fmt.Sprintf(`<%s><input type="checkbox" name="remember" value="yes"> Remember me</%[1]s>`, wrap)
	}
	if wrap == "li" {
		body = "<ul>" + body + "</ul>"
	}
	return Instance{
		Task:   "Sign in as " + user,
		Params: []Param{{Name: "user", Value: user}, {Name: "pass", Value: pass, Secret: true}},
		Page:   static(form("unlabelled-login", body, "Sign in")),
		Want:   want,
		Steps: []Step{open("unlabelled-login"),
			{Do: "fill", Role: "textbox", Name: "Username", PWUnnamed: true, Value: user},
			{Do: "fill", Role: "textbox", Name: "Password", PWUnnamed: true, PWNth: 1, Value: pass},
			click("button", "Sign in")},
	}
}

var months = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

// date draws a date whose day is past 12, so that it reads one way only.
func (d *dice) date() (y, m, day int) {
	return 2020 + d.IntN(10), 1 + d.IntN(12), 13 + d.IntN(16)
}

// dateMDY: the task writes 09/17/2026, the date input takes 2026-09-17.
func dateMDY(d *dice, _ bool) Instance {
	y, m, day := d.date()
	iso := fmt.Sprintf("%04d-%02d-%02d", y, m, day)
	given := fmt.Sprintf("%02d/%02d/%04d", m, day, y)
	want := url.Values{"delivery": {iso}, "return": {""}}
	body := d.field("Delivery date", "delivery", "date", "") + d.field("Return date", "return", "date", "") + d.decoys(want)
	return Instance{
		Task:   "Set the delivery date to " + given,
		Params: []Param{{Name: "date", Value: given}},
		Page:   static(form("date-mdy", body, "Save")),
		Want:   want,
		Steps:  []Step{open("date-mdy"), {Do: "set", Role: "date-picker", PWRole: "textbox", Name: "Delivery date", Value: iso}, click("button", "Save")},
	}
}

// dateLong: the task writes March 17, 2026.
func dateLong(d *dice, _ bool) Instance {
	y, m, day := d.date()
	iso := fmt.Sprintf("%04d-%02d-%02d", y, m, day)
	given := fmt.Sprintf("%s %d, %d", months[m-1], day, y)
	want := url.Values{"day": {iso}}
	body := d.decoys(want) + d.field("Booking date", "day", "date", "")
	return Instance{
		Task:   "Book the room for " + given,
		Params: []Param{{Name: "day", Value: given}},
		Page:   static(form("date-long", body, "Book")),
		Want:   want,
		Steps:  []Step{open("date-long"), {Do: "set", Role: "date-picker", PWRole: "textbox", Name: "Booking date", Value: iso}, click("button", "Book")},
	}
}

// time12h: the task writes 3:45 PM, the time input takes 15:45.
func time12h(d *dice, _ bool) Instance {
	h, m := 13+d.IntN(10), 5*d.IntN(12)
	if d.IntN(3) == 0 {
		h = 1 + d.IntN(11)
	}
	h12, half := h, "AM"
	if h >= 12 {
		half = "PM"
	}
	if h12 > 12 {
		h12 -= 12
	}
	given := fmt.Sprintf("%d:%02d %s", h12, m, half)
	want := url.Values{"start": {fmt.Sprintf("%02d:%02d", h, m)}}
	body := d.field("Topic", "topic", "text", ` value="Weekly sync"`) + d.field("Start time", "start", "time", "")
	want["topic"] = []string{"Weekly sync"}
	return Instance{
		Task:   "Set the meeting to start at " + given,
		Params: []Param{{Name: "start", Value: given}},
		Page:   static(form("time-12h", body, "Save")),
		Want:   want,
		Steps:  []Step{open("time-12h"), {Do: "set", Role: "time-picker", PWRole: "textbox", Name: "Start time", Value: want["start"][0]}, click("button", "Save")},
	}
}

// amount: the task writes $1,250.50, the number input takes 1250.50.
func amount(d *dice, _ bool) Instance {
	whole, cents := 1000+d.IntN(90000), d.IntN(100)
	given := fmt.Sprintf("$%s.%02d", thousands(whole), cents)
	plain := fmt.Sprintf("%d.%02d", whole, cents)
	want := url.Values{"amount": {plain}}
	body := d.decoys(want) + d.field("Amount", "amount", "number", ` step="0.01"`)
	return Instance{
		Task:   "Pay " + given,
		Params: []Param{{Name: "amount", Value: given}},
		Page:   static(form("amount", body, "Pay")),
		Want:   want,
		Steps:  []Step{open("amount"), fill("spinbutton", "Amount", plain), click("button", "Pay")},
	}
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// voucher: the task writes the code in small letters, the field takes capitals.
func voucher(d *dice, _ bool) Instance {
	code := fmt.Sprintf("%c%c-%d", 'a'+rune(d.IntN(26)), 'a'+rune(d.IntN(26)), 1000+d.IntN(9000))
	want := url.Values{"code": {strings.ToUpper(code)}}
	body := d.field("Voucher code (capital letters)", "code", "text", ` pattern="[A-Z0-9-]+"`) + d.decoys(want)
	return Instance{
		Task:   "Apply the voucher code " + code,
		Params: []Param{{Name: "code", Value: code}},
		Page:   static(form("voucher", body, "Apply")),
		Want:   want,
		Steps:  []Step{open("voucher"), fill("textbox", "Voucher code (capital letters)", strings.ToUpper(code)), click("button", "Apply")},
	}
}

// slider: a range input set to the task's number.
func slider(d *dice, _ bool) Instance {
	level, start := fmt.Sprint(5+d.IntN(90)), fmt.Sprint(d.IntN(101))
	want := url.Values{"volume": {level}, "balance": {start}}
	body := d.field("Balance", "balance", "range", ` min="0" max="100" value="`+start+`"`) + d.field("Volume", "volume", "range", ` min="0" max="100" value="`+start+`"`)
	return Instance{
		Task:   "Set the volume to " + level,
		Params: []Param{{Name: "volume", Value: level}},
		Page:   static(form("slider", body, "Save")),
		Want:   want,
		Steps:  []Step{open("slider"), {Do: "set", Role: "slider", Name: "Volume", Value: level}, click("button", "Save")},
	}
}
