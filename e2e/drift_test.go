package e2e

import (
	"errors"
	"testing"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// vendorFlow is the registration as targets recorded on the baseline
// portal: each carries the stable id, role, name and contract seen there.
func vendorFlow(t *testing.T, b *bus.BrowserSession) []schema.Action {
	t.Helper()
	target := func(obs *schema.Observation, role, name string) *schema.Target {
		n := findNode(t, obs, role, name)
		return &schema.Target{ID: n.ID, Role: n.Role, Name: n.Name, Contract: n.Contract}
	}
	var flow []schema.Action
	step := func(a schema.Action) {
		flow = append(flow, a)
		act(t, b, a)
	}
	step(schema.Action{Kind: schema.ActNavigate, URL: "/vendors/new"})
	obs := observe(t, b).Observation
	step(schema.Action{Kind: schema.ActFill, Target: target(&obs, "textbox", "Company name"), Value: "Initech"})
	step(schema.Action{Kind: schema.ActFill, Target: target(&obs, "textbox", "Tax ID"), Value: "DE123456789"})
	step(schema.Action{Kind: schema.ActFill, Target: target(&obs, "textbox", "Contact email"), Value: "ap@initech.example"})
	step(schema.Action{Kind: schema.ActFill, Target: target(&obs, "textbox", "Phone"), Value: "+49 30 1234567"})
	step(schema.Action{Kind: schema.ActClick, Target: target(&obs, "button", "Next")})
	obs = observe(t, b).Observation
	step(schema.Action{Kind: schema.ActFill, Target: target(&obs, "textbox", "Street address"), Value: "1 Main St"})
	step(schema.Action{Kind: schema.ActFill, Target: target(&obs, "textbox", "City"), Value: "Berlin"})
	step(schema.Action{Kind: schema.ActSelect, Target: target(&obs, "combobox", "Country"), Value: "Germany"})
	step(schema.Action{Kind: schema.ActCheck, Target: target(&obs, "radio", "Supplier")})
	step(schema.Action{Kind: schema.ActClick, Target: target(&obs, "button", "Next")})
	obs = observe(t, b).Observation
	step(schema.Action{Kind: schema.ActClick, Target: target(&obs, "button", "Register vendor")})
	observe(t, b) // the last click submits: let its navigation land
	return flow
}

// TestVendorFlowUnderDrift records the registration's targets on the
// baseline portal and performs the same actions under each drift
// variant. Where the controls are the same it completes; where a control
// changed it stops before the changed step with a typed reason. The
// portal's own state is the judge: no variant may register, import or
// offboard anything it should not.
func TestVendorFlowUnderDrift(t *testing.T) {
	long(t, "the vendor flow under every portal variant")
	t.Parallel()
	b := planes(t)
	baseURL, basePortal := portalSite(t, "")
	flow := vendorFlow(t, loggedIn(t, b, baseURL))
	if st := basePortal.State(); len(st.Vendors) != 1 || st.Vendors[0].CompanyName != "Initech" || st.Vendors[0].Country != "Germany" {
		t.Fatalf("baseline registration: %+v", st.Vendors)
	}
	cases := []struct {
		variant string
		stopsAt int   // index of the refused step; -1 when the flow completes
		code    error // why it stops
	}{
		{"cosmetic", -1, nil},
		{"renames", -1, nil},
		{"remount", -1, nil},
		{"field-order", -1, nil},
		{"moved-button", -1, nil},
		{"label-rename", 1, schema.ErrNotFound},
		{"interstitial", 1, schema.ErrObscured},
		{"textarea", 6, schema.ErrControlChanged},
		{"submit-elsewhere", 11, schema.ErrContractChanged},
		{"offboarding", 11, schema.ErrNotFound},
	}
	for _, c := range cases {
		t.Run(c.variant, func(t *testing.T) {
			url, p := portalSite(t, c.variant)
			s := loggedIn(t, b, url)
			for i, a := range flow {
				ev, err := s.Act(testContext(t), "", a)
				if err != nil {
					t.Fatal(err)
				}
				if i == c.stopsAt {
					if ev.Error == nil || !errors.Is(ev.Error, c.code) {
						t.Fatalf("step %d (%s %s): got %v, want %v", i, a.Kind, targetName(a), ev.Error, c.code)
					}
					t.Logf("stops at step %d (%s %s): %v", i, a.Kind, targetName(a), ev.Error)
					break
				}
				if ev.Error != nil {
					t.Fatalf("step %d (%s %s) failed: %v", i, a.Kind, targetName(a), ev.Error)
				}
			}
			observe(t, s) // let a last submit land before judging
			st := p.State()
			registered := len(st.Vendors) == 1 && st.Vendors[0].CompanyName == "Initech"
			if want := c.stopsAt < 0; registered != want || len(st.Imports) != 0 || len(st.Offboarded) != 0 {
				t.Fatalf("portal state: vendors %+v, imports %+v, offboarded %+v", st.Vendors, st.Imports, st.Offboarded)
			}
		})
	}
}

func targetName(a schema.Action) string {
	if a.Target == nil {
		return a.URL
	}
	return a.Target.Name
}
