package report

import "github.com/rote-agent/rote/schema"

// Arm is which side of the comparison a run is on.
type Arm string

// The arms: the cold agent (its provider cache warmed by an earlier,
// unmeasured run of the same instance), and Rote warm (match, bind,
// replay, and whatever the ladder did after).
const (
	Cold Arm = "cold"
	Warm Arm = "warm"
)

// Result is one measured run of one task repetition, every number read
// back from the run log.
type Result struct {
	Task     string   `json:"task"`
	Variant  string   `json:"variant,omitempty"`
	Rep      int      `json:"rep"`
	Arm      Arm      `json:"arm"`
	Runs     []string `json:"runs"`               // the runs it made: a replay and its fallback are two
	Mode     string   `json:"mode"`               // agent, replay, repair, fallback
	Playbook string   `json:"playbook,omitempty"` // the playbook the matcher chose, name@version
	// Success is the independent verifier's word (the portal's
	// server-side state), never the run's self-report; Verified is the
	// run's own verify gate.
	Success  bool `json:"success"`
	Verified bool `json:"verified"`
	// FalseMatch is a warm run whose task must miss (or whose playbook
	// is another task's) that was matched anyway.
	FalseMatch bool                 `json:"false_match"`
	Usage      []schema.SourceUsage `json:"usage"`
	Calls      int                  `json:"model_calls"`
	Logical    int64                `json:"logical_tokens"`
	Adjusted   float64              `json:"adjusted_tokens"`
	// ObservationTokens are the tokens of the page renders the model read.
	ObservationTokens int64   `json:"observation_tokens"`
	WallMS            float64 `json:"wall_ms"`
	// ModelMS is the part of WallMS spent waiting for the model.
	ModelMS float64 `json:"model_ms"`
	// Classes are its runs' steps by why they ran.
	Classes []schema.ClassUsage `json:"classes,omitempty"`
	// CumulativeTokens are the logical tokens after each model call, for
	// the tokens-over-steps plot.
	CumulativeTokens []int64 `json:"cumulative_tokens,omitempty"`
}

// Totals fills Calls, Logical and Adjusted from Usage.
func (r *Result) Totals() {
	r.Calls, r.Logical, r.Adjusted = 0, 0, 0
	for _, u := range r.Usage {
		r.Calls += u.Calls
		r.Logical += u.Tokens.Logical()
		r.Adjusted += u.Tokens.Adjusted()
	}
}
