package portal

import (
	"maps"
	"slices"
)

// State is everything the portal has recorded, for tests and verifiers to
// check outcomes without reading a page. Portal.State returns a deep copy;
// GET /__state serves it as JSON.
type State struct {
	// Logins counts successful sign-ins.
	Logins int `json:"logins"`
	// Vendors are the vendors registered through POST /vendors, in order.
	Vendors []Vendor `json:"vendors"`
	// Offboarded are the vendors submitted through the offboarding variant.
	Offboarded []Vendor `json:"offboarded"`
	// Imports are the vendors queued through the submit-elsewhere variant.
	Imports []Vendor `json:"imports"`
	// Triage maps an inbox message id (M-01) to the category it was filed as.
	Triage map[string]string `json:"triage"`
	// Settings are the saved site settings.
	Settings Settings `json:"settings"`
	// Downloads are the report ids downloaded, in order, repeats included.
	Downloads []string `json:"downloads"`
	// Cart are the SKUs added to the cart, in order, repeats included.
	Cart []string `json:"cart"`
	// Requested is the title of the report the Reports page says the
	// auditor asks for ("" none).
	Requested string `json:"requested,omitempty"`
	// Archived are the record ids archived, in order.
	Archived []string `json:"archived"`
	// Purges counts POST /vendors/purge (lookalike-button and
	// destructive-submit variants); Purged are the vendors they deleted.
	Purges int      `json:"purges"`
	Purged []Vendor `json:"purged"`
	// Deleted are the records named in the inserted-field variant's
	// "Delete a record" form, in order.
	Deleted []string `json:"deleted"`
	// Drills are the drills submitted, in order, right or wrong.
	Drills []DrillAnswer `json:"drills"`
	// Board is the release board.
	Board Board `json:"board"`
}

// Vendor is one vendor as the multi-page form collected it.
type Vendor struct {
	// ID is V-0001 for registered vendors, IMP-0001 for queued imports
	// and OFF-0001 for offboarded vendors, numbered per list.
	ID string `json:"id"`
	// CompanyName is the "Company name" field.
	CompanyName string `json:"company_name"`
	// TaxID is the "Tax ID" field: two capital letters and 6 to 10 digits.
	TaxID string `json:"tax_id"`
	// Email is the "Contact email" field.
	Email string `json:"email"`
	// Phone is the "Phone" field.
	Phone string `json:"phone"`
	// Street is the "Street address" field.
	Street string `json:"street"`
	// City is the "City" field.
	City string `json:"city"`
	// Country is the country chosen, by name (Germany).
	Country string `json:"country"`
	// Category is Supplier, Contractor or Reseller.
	Category string `json:"category"`
	// Status is Active, Queued for import or Offboarded.
	Status string `json:"status"`
}

// Settings are the values of the settings page.
type Settings struct {
	// SiteTitle is shown in every page's header and title.
	SiteTitle string `json:"site_title"`
	// Timezone is UTC, Europe/Berlin, America/New_York or Asia/Tokyo.
	Timezone string `json:"timezone"`
	// EmailNotifications is the "Email notifications" checkbox.
	EmailNotifications bool `json:"email_notifications"`
	// WeeklyDigest is the "Weekly digest" checkbox.
	WeeklyDigest bool `json:"weekly_digest"`
}

// seedState is the state of a fresh portal. Slices and the map are
// non-nil so the JSON form shows [] and {} rather than null.
func seedState() State {
	return State{
		Vendors:    []Vendor{},
		Offboarded: []Vendor{},
		Imports:    []Vendor{},
		Triage:     map[string]string{},
		Settings: Settings{
			SiteTitle:          "Acme Operations",
			Timezone:           "UTC",
			EmailNotifications: true,
			WeeklyDigest:       false,
		},
		Downloads: []string{},
		Cart:      []string{},
		Archived:  []string{},
		Purged:    []Vendor{},
		Deleted:   []string{},
		Board:     seedBoard(),
	}
}

// clone returns a deep copy of s that shares no memory with it.
func (s State) clone() State {
	c := s
	c.Vendors = slices.Clone(s.Vendors)
	c.Offboarded = slices.Clone(s.Offboarded)
	c.Imports = slices.Clone(s.Imports)
	c.Triage = maps.Clone(s.Triage)
	c.Downloads = slices.Clone(s.Downloads)
	c.Cart = slices.Clone(s.Cart)
	c.Archived = slices.Clone(s.Archived)
	c.Purged = slices.Clone(s.Purged)
	c.Deleted = slices.Clone(s.Deleted)
	c.Drills = slices.Clone(s.Drills)
	c.Board = s.Board.clone()
	return c
}
