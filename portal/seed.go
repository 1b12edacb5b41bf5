package portal

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The seed data below is generated from fixed word lists, so every portal
// serves the same records, products, messages and reports.

// record is one row of /records.
type record struct {
	ID          string
	Name        string
	Status      string
	Owner       string
	AmountCents int
}

// Amount is the record's amount formatted as dollars.
func (r record) Amount() string { return money(r.AmountCents) }

var (
	recordFirst  = []string{"Northwind", "Blue Harbor", "Summit", "Redwood", "Silverline", "Granite", "Maple Leaf", "Ironbridge", "Sunrise", "Clearwater", "Evergreen", "Pinecrest"}
	recordSecond = []string{"Traders", "Logistics", "Foods", "Textiles", "Analytics", "Builders", "Outfitters", "Pharma", "Media", "Energy"}
	recordStatus = []string{"Active", "Pending", "Active", "Closed", "Active", "Pending", "Closed"}
	recordOwners = []string{"Alice Novak", "Bruno Silva", "Chen Wei", "Dana Okafor", "Elif Yilmaz", "Farid Haddad", "Grace Lin", "Hugo Martin"}
)

// records are the 120 seeded records, R-1001 to R-1120.
var records = makeRecords(120)

func makeRecords(n int) []record {
	out := make([]record, n)
	for i := range out {
		out[i] = record{
			ID:          fmt.Sprintf("R-%d", 1001+i),
			Name:        fmt.Sprintf("%s %s %d", recordFirst[i%len(recordFirst)], recordSecond[(i*7)%len(recordSecond)], 10+i),
			Status:      recordStatus[i%len(recordStatus)],
			Owner:       recordOwners[(i*3)%len(recordOwners)],
			AmountCents: 50_000 + (i*i*7919+i*104_729)%4_950_000,
		}
	}
	return out
}

// findRecord returns the seeded record with the given id.
func findRecord(id string) (record, bool) {
	for _, r := range records {
		if r.ID == id {
			return r, true
		}
	}
	return record{}, false
}

// product is one catalog entry.
type product struct {
	SKU        string
	Name       string
	Category   string
	PriceCents int
	// RatingTenths is the rating times ten, 10 to 50.
	RatingTenths int
}

// Price is the product's price formatted as dollars.
func (p product) Price() string { return money(p.PriceCents) }

// Rating is the product's rating with one decimal, 1.0 to 5.0.
func (p product) Rating() string {
	return strconv.Itoa(p.RatingTenths/10) + "." + strconv.Itoa(p.RatingTenths%10)
}

var (
	productCategories = []string{"Office", "Kitchen", "Garden", "Electronics", "Outdoor", "Furniture"}
	productNouns      = [][]string{
		{"Stapler", "Desk Lamp", "Paper Shredder", "Label Maker", "Whiteboard", "Filing Cabinet", "Monitor Stand", "Notebook Set", "Pen Holder", "Document Tray"},
		{"Chef Knife", "Cutting Board", "Espresso Maker", "Mixing Bowl Set", "Cast Iron Pan", "Kettle", "Toaster", "Spice Rack", "Blender", "Measuring Cups"},
		{"Pruning Shears", "Watering Can", "Hose Reel", "Leaf Rake", "Planter Box", "Seed Starter Kit", "Compost Bin", "Wheelbarrow", "Sprinkler", "Trowel"},
		{"Headphones", "Bluetooth Speaker", "USB-C Hub", "Power Bank", "Webcam", "Keyboard", "Mouse", "Smart Plug", "HDMI Cable", "Charger"},
		{"Camping Tent", "Sleeping Bag", "Hiking Backpack", "Headlamp", "Water Bottle", "Trekking Poles", "Picnic Blanket", "Cooler", "Camp Stove", "Hammock"},
		{"Bookshelf", "Standing Desk", "Armchair", "Coffee Table", "Bar Stool", "Wardrobe", "Nightstand", "Sofa", "Dining Chair", "Shoe Rack"},
	}
	productAdjectives = []string{"Compact", "Deluxe", "Classic", "Ergonomic", "Premium", "Essential", "Pro", "Everyday", "Studio", "Heritage"}
)

// products are the 60 seeded catalog products, SKU-001 to SKU-060.
var products = makeProducts()

func makeProducts() []product {
	var out []product
	for c, cat := range productCategories {
		for n, noun := range productNouns[c] {
			i := len(out)
			out = append(out, product{
				SKU:          fmt.Sprintf("SKU-%03d", i+1),
				Name:         productAdjectives[(n*3+c)%len(productAdjectives)] + " " + noun,
				Category:     cat,
				PriceCents:   (5+(i*37)%195)*100 + 99,
				RatingTenths: 10 + (i*17)%41,
			})
		}
	}
	return out
}

// findProduct returns the product with the given SKU.
func findProduct(sku string) (product, bool) {
	for _, p := range products {
		if p.SKU == sku {
			return p, true
		}
	}
	return product{}, false
}

// message is one seeded inbox message. Category is the category its body
// clearly calls for; the triage tests and ExpectedCategory read it.
type message struct {
	ID       string
	Subject  string
	From     string
	Received string
	Body     string
	Category string
}

// messages are the 12 seeded inbox messages, M-01 to M-12.
var messages = []message{
	{"M-01", "Invoice INV-4471 is overdue", "Globex Accounts <accounts@globex.example>", "2026-11-03 09:14",
		"Our records show that invoice INV-4471 for 1,250.00 EUR is now 14 days overdue. Please arrange payment this week.", "Billing"},
	{"M-02", "Nightly export crashed", "Ops Monitor <monitor@acme.example>", "2026-11-03 10:02",
		"The nightly export job crashed at 02:13 with error code E502. The stack trace points to a bug in the CSV writer.", "Technical"},
	{"M-03", "Locked out after three attempts", "Priya Raman <priya.raman@initech.example>", "2026-11-03 11:47",
		"I typed my password wrong three times and now my account is locked. Could you unlock it so I can log in again?", "Account"},
	{"M-04", "Congratulations, you are a winner", "Prize Desk <winner@lucky-draw.example>", "2026-11-04 07:30",
		"You have been selected in our international lottery and won a prize of 1,000,000 USD. Click here to claim it today.", "Spam"},
	{"M-05", "Refund for order 5521", "Marta Kowalski <marta@umbrella.example>", "2026-11-04 13:05",
		"Please issue a refund for order 5521. The goods arrived damaged and we would like the full amount returned.", "Billing"},
	{"M-06", "Reports tab shows Error 500", "Tom Becker <tom.becker@acme.example>", "2026-11-05 08:21",
		"Since this morning the reports tab shows an Error 500 page. It looks like a bug introduced by the latest release.", "Technical"},
	{"M-07", "Password reset link expired", "Luis Ortega <luis@hooli.example>", "2026-11-05 16:40",
		"The password reset link you sent me expired before I could use it. Please send a new one so I can log in.", "Account"},
	{"M-08", "Exclusive reward waiting for you", "Rewards Team <rewards@free-gifts.example>", "2026-11-06 06:55",
		"Click here to receive your free gift card. Every reply enters you into our weekly lottery.", "Spam"},
	{"M-09", "Unexpected charge on October statement", "Nora Lindqvist <nora@vandelay.example>", "2026-11-06 12:18",
		"There is an unexpected charge of 89.00 EUR on our October statement. Can you explain what it is for?", "Billing"},
	{"M-10", "Mobile app crashes on upload", "Sam Patel <sam.patel@acme.example>", "2026-11-07 09:09",
		"The mobile app crashes every time I upload a photo larger than 5 MB. I can reproduce the crash on two phones.", "Technical"},
	{"M-11", "New colleague cannot log in", "Helen Murphy <helen@initech.example>", "2026-11-07 14:33",
		"Our new colleague Jonas cannot log in: the portal says his account is locked although he never signed in before.", "Account"},
	{"M-12", "Claim your prize now", "Notifications <no-reply@claim-now.example>", "2026-11-08 05:12",
		"Final notice: your prize expires at midnight. Click here and enter your details to collect your winnings.", "Spam"},
}

// findMessage returns the seeded message with the given id.
func findMessage(id string) (message, bool) {
	for _, m := range messages {
		if m.ID == id {
			return m, true
		}
	}
	return message{}, false
}

// report is one downloadable monthly report.
type report struct {
	ID        string
	Title     string
	Period    string
	Published string
	year      int
	month     int
}

// seedReports are the six seeded monthly reports, newest first: November
// 2026 (RPT-2026-11) down to June 2026 (RPT-2026-06).
func seedReports() []report {
	var out []report
	for m := 11; m >= 6; m-- {
		out = append(out, monthlyReport(2026, m))
	}
	return out
}

// monthlyReport is the operations report of a month, published on the
// first of the next.
func monthlyReport(year, month int) report {
	period := time.Month(month).String() + " " + strconv.Itoa(year)
	published := time.Date(year, time.Month(month)+1, 1, 0, 0, 0, 0, time.UTC)
	return report{
		ID:        fmt.Sprintf("RPT-%d-%02d", year, month),
		Title:     "Operations report " + period,
		Period:    period,
		Published: published.Format("2006-01-02"),
		year:      year,
		month:     month,
	}
}

// findReport returns the published report with the given id.
func (p *Portal) findReport(id string) (report, bool) {
	for _, r := range p.reports {
		if r.ID == id {
			return r, true
		}
	}
	return report{}, false
}

// money formats cents as dollars with thousands separators: $12,345.67.
func money(cents int) string {
	whole := strconv.Itoa(cents / 100)
	var b strings.Builder
	for i, d := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return fmt.Sprintf("$%s.%02d", b.String(), cents%100)
}
