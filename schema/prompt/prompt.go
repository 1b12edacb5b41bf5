// Package prompt holds what the planner's prompts share with those who
// read them: the section headings a prompt is made of, and the entries of
// the action ledger it lists under Steps. A model reads the headings as
// text; the offline scripted model's oracles and the distiller's slot
// steps look for them the same way, so they are named here, once, rather
// than copied.
package prompt

// Section headings of the planner's prompts.
const (
	Task     = "Task: "                   // the task, one line
	Params   = "Parameters:"              // then "- name: value" lines
	Site     = "Site: "                   // the site brief
	Steps    = "Steps so far:"            // then one JSON line per step (a LedgerEntry)
	Page     = "Page:"                    // then a full render
	Changes  = "Changes since that page:" // then a diff render
	Question = "Question: "               // a slot or judgment prompt
	Options  = "Options: "                // a judgment's options, " | "-separated
	Failed   = "Failed step: "            // a repair request's step id
	Failure  = "Failure: "                // why it failed
	Intent   = "Intent: "                 // the playbook's intent
	Bind     = "Bind: "                   // the parameter names to bind, ", "-separated
	Choices  = "Playbooks:"               // then "N. intent" lines, from 1
	Result   = "Result:"                  // in a slot prompt, then the result it writes from
	Routines = "Routines"                 // in the site brief, then "- name(params): what it does" lines
)

// LedgerEntry is one line of the action ledger: a prior step, compact.
type LedgerEntry struct {
	Step   int    `json:"step"`
	Action string `json:"action"`
	Target string `json:"target,omitempty"` // the element id
	Role   string `json:"role,omitempty"`
	Name   string `json:"name,omitempty"`
	Value  string `json:"value,omitempty"`
	URL    string `json:"url,omitempty"`
	Result string `json:"result"`           // ok, replayed, or the refusal
	Output string `json:"output,omitempty"` // what extract read, shortened
}
