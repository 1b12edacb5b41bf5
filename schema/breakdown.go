package schema

import "time"

// StepTime is where one replay step's time went, by its run's events.
// Wall is the step as the replay measured it; the phases are what the
// actuator, perception, the MCP server and the model reported, and Record
// is the rest: the bus's round trips, recording events and evaluating
// checks.
type StepTime struct {
	StepID  string        `json:"step_id"`
	Wall    time.Duration `json:"wall"`
	Settle  time.Duration `json:"settle"`  // pages settling before its actions and observations
	Resolve time.Duration `json:"resolve"` // finding its targets on the page
	Act     time.Duration `json:"act"`     // dispatching its actions; an MCP step's tool calls
	Send    time.Duration `json:"send"`    // a sending control's page settling under its guard
	Check   time.Duration `json:"check"`   // observing for its expects; an MCP step's probe calls
	Model   time.Duration `json:"model"`   // a slot, judgment or repair's model calls
	Record  time.Duration `json:"record"`
}

// TotalStepTime adds steps up, phase by phase (StepID empty).
func TotalStepTime(steps []StepTime) StepTime {
	var sum StepTime
	for _, t := range steps {
		sum.Wall += t.Wall
		sum.Settle += t.Settle
		sum.Resolve += t.Resolve
		sum.Act += t.Act
		sum.Send += t.Send
		sum.Check += t.Check
		sum.Model += t.Model
		sum.Record += t.Record
	}
	return sum
}

// StepTimes breaks a finished replay's steps down by phase, in the order
// they ran, and then the rest of the run (RestStep); nil for a run whose
// manifest reports no steps.
func (r *RunFold) StepTimes() []StepTime {
	if r.Finished == nil || len(r.Finished.Steps) == 0 {
		return nil
	}
	by := map[string]*StepTime{}
	at := func(id string) *StepTime {
		if by[id] == nil {
			by[id] = &StepTime{StepID: id}
		}
		return by[id]
	}
	for _, a := range r.Actions {
		t := at(a.StepID)
		t.Settle += a.SettleWait
		t.Resolve += a.Timing.Resolve
		t.Act += a.Timing.Dispatch
		t.Send += a.Timing.Send
	}
	for _, o := range r.Observations {
		t := at(o.StepID)
		t.Settle += o.Stats.Settle
		t.Check += o.Stats.Capture + o.Stats.Distill
	}
	for _, c := range r.Calls {
		if c.Probe {
			at(c.StepID).Check += c.Duration
		} else {
			at(c.StepID).Act += c.Duration
		}
	}
	for _, c := range r.LLMCalls {
		at(c.StepID).Model += c.Duration
	}
	out := make([]StepTime, 0, len(r.Finished.Steps)+1)
	var steps time.Duration
	for _, s := range r.Finished.Steps {
		steps += s.Duration
		t := StepTime{StepID: s.StepID}
		if got := by[s.StepID]; got != nil {
			t = *got
			delete(by, s.StepID) // a step id runs once; a repeat reports its own wall
		}
		t.Wall = s.Duration
		t.Record = max(0, t.Wall-t.Settle-t.Resolve-t.Act-t.Send-t.Check-t.Model)
		out = append(out, t)
	}
	// The rest of the run is the verify gate's look at the page and what
	// no step holds: RestStep.
	rest := StepTime{StepID: RestStep}
	if got := by[""]; got != nil {
		rest = *got
		rest.StepID = RestStep
	}
	rest.Wall = max(0, r.Finished.Finished.Sub(r.Finished.Started)-steps)
	rest.Record = max(0, rest.Wall-rest.Settle-rest.Resolve-rest.Act-rest.Send-rest.Check-rest.Model)
	return append(out, rest)
}

// RestStep names the last row of StepTimes: the verify gate and what no
// step holds.
const RestStep = "(verify and the rest)"
