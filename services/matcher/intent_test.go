package matcher

import (
	"testing"

	"github.com/rote-agent/rote/schema"
)

const vendorIntent = "Sign in as {{username}} and register the vendor {{company}} (tax ID {{tax_id}}, email {{email}}, phone {{phone}}, {{street}}, {{city}}, {{country}}) as a {{category}}."

func vendorTask(verb string) string {
	return "Sign in as admin and " + verb + " the vendor Globex (tax ID FR20441987, email ap@globex.example, phone +49 30 5510001, 2 Main St, Paris, France) as a Contractor."
}

var vendorParams = map[string]string{"username": "admin", "company": "Globex", "tax_id": "FR20441987", "email": "ap@globex.example",
	"phone": "+49 30 5510001", "street": "2 Main St", "city": "Paris", "country": "France", "category": "Contractor"}

// TestScore: the same task shape with new values scores 1, slotted or
// not; a near miss that differs in one content word, or adds one, scores
// under the threshold; stopwords and punctuation do not count.
func TestScore(t *testing.T) {
	for name, c := range map[string]struct {
		task string
		want func(float64) bool
	}{
		"same shape, slotted":     {schema.SlotOut(vendorTask("register"), vendorParams), func(s float64) bool { return s == 1 }},
		"same shape, as text":     {vendorTask("register"), func(s float64) bool { return s == 1 }},
		"stopwords differ":        {schema.SlotOut("Please sign in as admin, then register vendor Globex (tax ID FR20441987, email ap@globex.example, phone +49 30 5510001, 2 Main St, Paris, France) as Contractor", vendorParams), func(s float64) bool { return s == 1 }},
		"as text, extra sentence": {vendorTask("register") + " Then delete it.", func(s float64) bool { return s < Threshold }},
		"near miss: offboard":     {schema.SlotOut(vendorTask("offboard"), vendorParams), func(s float64) bool { return s < Threshold && s > 0.9 }},
		"near miss: extra word":   {schema.SlotOut(vendorTask("register"), vendorParams) + " Then delete it.", func(s float64) bool { return s < Threshold }},
		"another task":            {"Sign in as admin and download the latest operations report.", func(s float64) bool { return s < 0.6 }},
	} {
		if got := score(c.task, vendorIntent); !c.want(got) {
			t.Errorf("%s: score %.3f", name, got)
		}
	}
}

// TestCaptured reads slot values out of task text with the task's casing.
func TestCaptured(t *testing.T) {
	got := captured(vendorTask("register"), vendorIntent)
	for k, v := range vendorParams {
		if got[k] != v {
			t.Errorf("%s: captured %q, want %q", k, got[k], v)
		}
	}
	if captured(vendorTask("offboard"), vendorIntent) != nil {
		t.Error("a near miss captured values")
	}
}
