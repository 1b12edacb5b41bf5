package portal

import (
	"fmt"
	"strings"
)

// The variant names. Each changes one thing about the portal; see Variants.
const (
	variantCosmetic        = "cosmetic"
	variantRenames         = "renames"
	variantRemount         = "remount"
	variantLabelRename     = "label-rename"
	variantFieldOrder      = "field-order"
	variantMovedButton     = "moved-button"
	variantInterstitial    = "interstitial"
	variantTextarea        = "textarea"
	variantSubmitElsewhere = "submit-elsewhere"
	variantOffboarding     = "offboarding"
	variantInsertedField   = "inserted-field"
	variantLookalike       = "lookalike-button"
	variantSwappedFields   = "swapped-fields"
	variantDestructive     = "destructive-submit"
	variantNoHeading       = "no-heading"
	variantLandingMoved    = "landing-moved"
	variantLoginWelcome    = "login-welcome"
)

// Variants returns every valid non-empty variant name in a fixed order:
//
//   - cosmetic: another stylesheet, deeper wrappers, a decorative banner;
//     nothing a screen reader reads changes.
//   - renames: every id and class value differs; labels follow the ids.
//   - remount: <main> is rendered client-side from a <template>, and
//     rendered again, replacing every node, when a request to /__ping
//     (which takes 300 ms) returns: a single-page app's fetch-then-render.
//   - label-rename: "Company name" reads "Legal entity name".
//   - field-order: the first vendor step lists its fields in reverse.
//   - moved-button: the vendor forms' submit button sits in a toolbar above
//     the form, tied to it by the form attribute.
//   - interstitial: a modal notice covers the first vendor step until
//     dismissed.
//   - textarea: "Street address" is a textarea.
//   - submit-elsewhere: the review form posts to /vendors/import, which
//     queues an import instead of registering.
//   - offboarding: the same-looking form offboards instead of registering.
//   - inserted-field: above the first vendor step's form sits another
//     form, "Delete a record", whose text field deletes the record named
//     in it (POST /records/delete).
//   - lookalike-button: the review page shows, before the real form, a
//     button reading the same "Register vendor" whose form purges every
//     registered vendor (POST /vendors/purge) and answers as if it had
//     registered one.
//   - swapped-fields: "Contact email" and "Phone" trade places.
//   - destructive-submit: the review form itself posts to /vendors/purge,
//     which purges and answers "Vendor … registered".
//   - no-heading: the vendor pages lose their h1 (the title stays).
//   - landing-moved: signing in lands on /start, the dashboard under
//     another address, instead of /dashboard.
//   - login-welcome: the sign-in page's heading reads "Welcome back"
//     instead of "Sign in"; its form is as it was.
func Variants() []string {
	return []string{
		variantCosmetic,
		variantRenames,
		variantRemount,
		variantLabelRename,
		variantFieldOrder,
		variantMovedButton,
		variantInterstitial,
		variantTextarea,
		variantSubmitElsewhere,
		variantOffboarding,
		variantInsertedField,
		variantLookalike,
		variantSwappedFields,
		variantDestructive,
		variantNoHeading,
		variantLandingMoved,
		variantLoginWelcome,
	}
}

// flags is a variant decoded into switches the templates and handlers read.
// Exactly one is set, or none for the baseline.
type flags struct {
	Cosmetic        bool
	Renames         bool
	Remount         bool
	LabelRename     bool
	FieldOrder      bool
	MovedButton     bool
	Interstitial    bool
	Textarea        bool
	SubmitElsewhere bool
	Offboarding     bool
	InsertedField   bool
	Lookalike       bool
	SwappedFields   bool
	Destructive     bool
	NoHeading       bool
	LandingMoved    bool
	LoginWelcome    bool
}

// flagsFor decodes a variant name; "" is the baseline.
func flagsFor(name string) (flags, error) {
	var f flags
	switch name {
	case "":
	case variantCosmetic:
		f.Cosmetic = true
	case variantRenames:
		f.Renames = true
	case variantRemount:
		f.Remount = true
	case variantLabelRename:
		f.LabelRename = true
	case variantFieldOrder:
		f.FieldOrder = true
	case variantMovedButton:
		f.MovedButton = true
	case variantInterstitial:
		f.Interstitial = true
	case variantTextarea:
		f.Textarea = true
	case variantSubmitElsewhere:
		f.SubmitElsewhere = true
	case variantOffboarding:
		f.Offboarding = true
	case variantInsertedField:
		f.InsertedField = true
	case variantLookalike:
		f.Lookalike = true
	case variantSwappedFields:
		f.SwappedFields = true
	case variantDestructive:
		f.Destructive = true
	case variantNoHeading:
		f.NoHeading = true
	case variantLandingMoved:
		f.LandingMoved = true
	case variantLoginWelcome:
		f.LoginWelcome = true
	default:
		return f, fmt.Errorf("%w %q", ErrUnknownVariant, name)
	}
	return f, nil
}

// id maps a template's logical element id to the id the page carries.
// Only the renames variant changes it. Every id, for, form,
// aria-labelledby and aria-describedby value in the templates goes
// through it, so references always resolve.
func (f flags) id(name string) string {
	if f.Renames {
		return renamed(name)
	}
	return name
}

// class maps a template's space-separated logical class names to the
// classes the page carries: renamed under renames, swapped for the
// cosmetic stylesheet's names under cosmetic.
func (f flags) class(names string) string {
	fields := strings.Fields(names)
	for i, c := range fields {
		switch {
		case f.Renames:
			fields[i] = renamed(c)
		case f.Cosmetic:
			if alt, ok := cosmeticClasses[c]; ok {
				fields[i] = alt
			}
		}
	}
	return strings.Join(fields, " ")
}

// renamed is the renames variant's spelling of an id or class.
func renamed(name string) string { return "qx-" + name + "-r7" }

// cosmeticClasses are the classes the cosmetic stylesheet uses in place of
// the baseline's, for wrappers and buttons. Classes not listed are kept.
var cosmeticClasses = map[string]string{
	"layout":        "app-body",
	"site-header":   "masthead",
	"site-title":    "masthead-brand",
	"main-nav":      "app-nav",
	"nav-list":      "app-nav-items",
	"nav-item":      "app-nav-entry",
	"main":          "app-main",
	"site-footer":   "colophon",
	"btn":           "button",
	"btn-primary":   "button-accent",
	"btn-secondary": "button-quiet",
	"btn-small":     "button-compact",
	"field":         "form-row",
	"form-footer":   "form-actions-bar",
	"table":         "data-grid",
	"notice":        "callout",
}

// renameSelectors renames the class and id selectors in a stylesheet's
// selector text.
func renameSelectors(sel string) string {
	var b strings.Builder
	for i := 0; i < len(sel); i++ {
		c := sel[i]
		b.WriteByte(c)
		if c != '.' && c != '#' {
			continue
		}
		j := i + 1
		for j < len(sel) && isIdentByte(sel[j], j == i+1) {
			j++
		}
		if j > i+1 {
			b.WriteString(renamed(sel[i+1 : j]))
			i = j - 1
		}
	}
	return b.String()
}

// isIdentByte reports whether c may appear in a CSS identifier, at its
// start when first is set.
func isIdentByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		return true
	case c >= '0' && c <= '9', c == '-':
		return !first
	}
	return false
}

// renameStylesheet rewrites the class and id selectors of css for the
// renames variant. Text before each '{' is a selector or an at-rule
// prelude; declarations (between '{' and '}') are left alone, so colours
// like #fff survive. The stylesheets hold no comments with braces.
func renameStylesheet(css string) string {
	var b strings.Builder
	start := 0
	for i := 0; i < len(css); i++ {
		switch css[i] {
		case '{':
			b.WriteString(renameSelectors(css[start:i]))
			b.WriteByte('{')
			start = i + 1
		case '}':
			b.WriteString(css[start : i+1])
			start = i + 1
		}
	}
	b.WriteString(css[start:])
	return b.String()
}
