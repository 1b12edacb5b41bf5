package planner

import "testing"

func TestUnfence(t *testing.T) {
	for in, want := range map[string]string{
		"```json\n{\"name\": \"Acme\"}\n```": `{"name": "Acme"}`,
		"```\nBilling\n```":                  "Billing",
		"  {\"a\": 1}  ":                     `{"a": 1}`,
		"```{\"a\": 1}```":                   `{"a": 1}`,
		"```a```\nand\n```b```":              "```a```\nand\n```b```",
		"Billing":                            "Billing",
	} {
		if got := unfence(in); got != want {
			t.Errorf("unfence(%q) = %q, want %q", in, got, want)
		}
	}
}
