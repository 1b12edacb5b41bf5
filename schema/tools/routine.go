package tools

import (
	"bytes"
	"encoding/json"

	"github.com/rote-agent/rote/schema"
)

// RunRoutine is the planner's tool that runs a routine of site memory
// whole: one call for all its steps, with no model in between. It is no
// browser tool (it is in no environment's fingerprint): the planner
// offers it on a site whose memory holds routines it trusts.
const RunRoutine = "run_routine"

// RoutineCall is a call of RunRoutine: the routine by name and the
// values of its parameters. A secret's value is never the model's: Rote
// takes it from the task.
type RoutineCall struct {
	Name   string            `json:"name"`
	Params map[string]string `json:"params,omitempty"`
}

// RoutineTool is RunRoutine's spec, offering the routines named names.
func RoutineTool(names []string) schema.ToolSpec {
	enum, _ := json.Marshal(names)
	return schema.ToolSpec{Name: RunRoutine,
		Description: "Run a routine of the site brief whole, by name, with its parameters' values (a secret's is the task's, not yours): Rote checks its first page and, after it, its postcondition.",
		InputSchema: schema.RawJSON(`{"type":"object","properties":{"name":{"type":"string","enum":` + string(enum) +
			`},"params":{"type":"object","additionalProperties":{"type":"string"}}},"required":["name"],"additionalProperties":false}`)}
}

// ParseRoutineCall reads a RunRoutine call's arguments strictly: unknown
// fields and values that are not strings are refused.
func ParseRoutineCall(args []byte) (RoutineCall, error) {
	var c RoutineCall
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, schema.Errorf(schema.CodeInvalid, "%s: %v", RunRoutine, err)
	}
	if c.Name == "" {
		return c, schema.Errorf(schema.CodeInvalid, "%s: no routine named", RunRoutine)
	}
	return c, nil
}
