package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/prompt"
	"github.com/rote-agent/rote/schema/tools"
)

const repairSystemPrompt = `You repair one step of a replayed playbook. The step no longer fits the page: its control is gone, renamed or another kind of field now (a text input turned textarea), or what it expected did not happen. You see the playbook's intent, the failed step, why it failed, and the page now (one element per line: ` + "`id role \"name\" = \"value\" [states]`" + `).
Answer with exactly one tool call: the one action that does on this page what the failed step did. Keep {{...}} templates in values exactly as they are. If the step failed as obscured (something covers its control), answer instead with the one action that clears what covers it, such as a dialog's dismiss button: the step is then retried as it is. If no single action can do it (it would need several steps, or would do something different), call fail with the reason.`

// repair answers rote.planner.repair: one model call (source repair) that
// sees only the failed step, its expected postcondition, the failure, the
// step's intent and the page now, and proposes one replacement step. The
// replacement aims at its control by role and name, so that it survives
// the page's next render; the executor runs it and keeps it only if its
// expect holds. For a step whose control is covered, the answer is the
// step that clears it instead (Clears).
func (s *Service) repair(ctx context.Context, req *schema.RepairRequest) (*schema.RepairReply, error) {
	user := prompt.Intent + oneLine(req.Intent) + "\n" + describeStep(&req.Step) +
		prompt.Failure + string(req.Failure.Code) + ": " + oneLine(req.Failure.Message) + "\n\n" + prompt.Page + "\n" + req.Page
	rep, err := s.llm.Complete(ctx, Call{RunID: req.RunID, StepID: req.Step.ID, Source: schema.SourceRepair, MaxTokens: 256, Tools: functionTools(agentTools()),
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: repairSystemPrompt}, {Role: openai.ChatMessageRoleUser, Content: user}}})
	if err != nil {
		return nil, err
	}
	step, err := replacement(rep, &req.Step, req.Page)
	if err != nil {
		return nil, err
	}
	if req.Failure.Code == schema.CodeObscured {
		// The answer clears the way; it asserts nothing of the step's.
		step.ID, step.Expect = req.Step.ID+"-clear", nil
		return &schema.RepairReply{Step: *step, Clears: true, Usage: rep.Event.Usage}, nil
	}
	return &schema.RepairReply{Step: *step, Usage: rep.Event.Usage}, nil
}

// describeStep shows a step as the repair prompt does: its id, then its
// tool, target, arguments and expect, indented.
func describeStep(st *schema.Step) string {
	var b strings.Builder
	b.WriteString(prompt.Failed + st.ID + "\n")
	fmt.Fprintf(&b, "  tool: %s\n", st.Tool)
	if t := st.Target; t != nil {
		fmt.Fprintf(&b, "  target: %s %s\n", t.Role, strconv.Quote(t.Name))
	}
	if len(st.Args) > 0 {
		data, _ := json.Marshal(st.Args)
		fmt.Fprintf(&b, "  args: %s\n", data)
	}
	for _, e := range st.Expect {
		fmt.Fprintf(&b, "  expect: %s\n", e)
	}
	return b.String()
}

// replacement turns the model's tool call into a step. A fail, no call or
// a call outside the actions is a *schema.Error with
// CodeRepairUnavailable: the replay falls back.
func replacement(rep *Reply, failed *schema.Step, page string) (*schema.Step, error) {
	if rep.ToolCall == nil {
		return nil, schema.Errorf(schema.CodeRepairUnavailable, "the model proposed no replacement for %s", failed.ID)
	}
	a, err := tools.ActionFromToolCall(rep.ToolCall.Name, []byte(rep.ToolCall.Arguments), nil)
	if err != nil {
		return nil, schema.Errorf(schema.CodeRepairUnavailable, "the model's replacement for %s is no valid action: %v", failed.ID, err)
	}
	switch a.Kind {
	case schema.ActFail, schema.ActDone:
		return nil, schema.Errorf(schema.CodeRepairUnavailable, "the model declined to repair %s: %s", failed.ID, a.Reason)
	}
	step := &schema.Step{ID: failed.ID, Kind: schema.StepDeterministic, Needs: failed.Needs, Tool: string(a.Kind), Expect: failed.Expect}
	if t := a.Target; t != nil {
		if step.Target = named(t, page); step.Target == nil {
			return nil, schema.Errorf(schema.CodeRepairUnavailable, "the model's replacement for %s aims at %s, which the page does not show", failed.ID, t.ID)
		}
		step.Expect = retarget(failed, step.Target)
	}
	switch a.Kind {
	case schema.ActNavigate:
		step.Args = map[string]any{"url": a.URL}
	case schema.ActSetValue:
		step.Args = map[string]any{"value": a.Value}
	case schema.ActDrag:
		to := named(a.To, page)
		if to == nil {
			return nil, schema.Errorf(schema.CodeRepairUnavailable, "the model's replacement for %s drops on %s, which the page does not show", failed.ID, a.To.ID)
		}
		drop := map[string]any{"role": to.Role, "name": to.Name}
		if to.Near != "" {
			drop["near"] = to.Near
		}
		step.Args = map[string]any{"to": drop}
	case schema.ActFill, schema.ActSelect:
		step.Args = map[string]any{"value": a.Value}
		if len(step.Expect) == 0 && step.Target != nil {
			step.Expect = []schema.Expect{{Op: schema.OpInputValue, Arg: step.Target.Role + " " + strconv.Quote(step.Target.Name), Value: mustJSON(a.Value)}}
		}
	case schema.ActPress:
		step.Args = map[string]any{"key": a.Value}
	case schema.ActCheck:
		if a.Value == "false" {
			step.Args = map[string]any{"checked": false}
		}
	}
	return step, nil
}

// named is t aimed by role and name, so that it survives the page's next
// render: an id is read off page as the role and name of its element.
// It is nil when page does not show that id.
func named(t *schema.Target, page string) *schema.Target {
	role, name := t.Role, t.Name
	if t.ID != "" {
		if role, name = lookup(page, t.ID); role == "" {
			return nil
		}
	}
	return &schema.Target{Role: role, Name: name, Near: t.Near}
}

// retarget returns the failed step's expect with every assertion about its
// old control now about the new one.
func retarget(failed *schema.Step, to *schema.Target) []schema.Expect {
	out := slices.Clone(failed.Expect)
	if failed.Target == nil {
		return out
	}
	old, err := schema.ParseSelector(failed.Target.Role + " " + strconv.Quote(failed.Target.Name))
	if err != nil {
		return out
	}
	for i, e := range out {
		if sel, err := schema.ParseSelector(e.Arg); err == nil && sel.String() == old.String() {
			out[i].Arg = to.Role + " " + strconv.Quote(to.Name)
		}
	}
	return out
}

// lookup finds the role and name of element id in a rendered page.
func lookup(page, id string) (role, name string) {
	for _, l := range strings.Split(page, "\n") {
		rest, ok := strings.CutPrefix(l, id+" ")
		if !ok {
			continue
		}
		role, rest, _ = strings.Cut(rest, " ")
		if q, err := strconv.QuotedPrefix(rest); err == nil {
			name, _ = strconv.Unquote(q)
			return role, name
		}
	}
	return "", ""
}

func mustJSON(v any) schema.RawJSON {
	data, _ := json.Marshal(v)
	return schema.RawJSON(data)
}
