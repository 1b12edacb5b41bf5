package schema

// Section headings of the planner's prompts. A model reads them as text;
// the offline scripted model's oracles look for them the same way, so they
// are named here, once, rather than copied.
const (
	PromptTask     = "Task: "                   // the task, one line
	PromptParams   = "Parameters:"              // then "- name: value" lines
	PromptSite     = "Site: "                   // the site brief
	PromptSteps    = "Steps so far:"            // then one JSON line per step
	PromptPage     = "Page:"                    // then a full render
	PromptChanges  = "Changes since that page:" // then a diff render
	PromptQuestion = "Question: "               // a slot or judgment prompt
	PromptOptions  = "Options: "                // a judgment's options, " | "-separated
	PromptFailed   = "Failed step: "            // a repair request's step id
	PromptFailure  = "Failure: "                // why it failed
	PromptIntent   = "Intent: "                 // the playbook's intent
	PromptBind     = "Bind: "                   // the parameter names to bind, ", "-separated
	PromptChoices  = "Playbooks:"               // then "N. intent" lines, from 1
	PromptResult   = "Result:"                  // in a slot prompt, then the result it writes from
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
