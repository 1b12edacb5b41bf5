package replay

import (
	"context"
	"errors"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// askPlanner runs a slot or judgment step: one bounded request to the
// planner, whose answer becomes the step's binding. A judgment outside
// its options is a hard error; a judgment among records reads them, its
// options, from the page as it is.
func (x *replay) askPlanner(ctx context.Context, s *schema.Step) (schema.TokenUsage, error) {
	prompt, err := schema.RenderString(s.Prompt, x.bindings)
	if err != nil {
		return schema.TokenUsage{}, err
	}
	options := s.Options
	var w schema.World
	if s.ChoosesRecords() {
		r, ok := x.d.(RecordReader)
		if !ok {
			return schema.TokenUsage{}, schema.Errorf(schema.CodeNotApplicable, "step %s chooses among records on a page, and this replay drives no page", s.ID)
		}
		options, w, err = r.Records(ctx, s.ID, s.Target)
	} else {
		w, err = x.look(ctx, s.ID, true)
	}
	if err != nil {
		return schema.TokenUsage{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, x.e.cfg.PlannerTimeout)
	defer cancel()
	var rep schema.ModelReply
	source := schema.SourceSlot
	if s.Kind == schema.StepJudgment {
		source = schema.SourceJudgment
		limit := s.MaxTokens
		if limit == 0 {
			limit = schema.DefaultJudgeLimit
		}
		err = x.e.rpc.Call(ctx, schema.SubjectJudgment, &schema.JudgmentRequest{RunID: x.runID, StepID: s.ID, Prompt: prompt, Options: options, MaxTokens: limit, Page: pageText(w)}, &rep)
	} else {
		err = x.e.rpc.Call(ctx, schema.SubjectSlot, &schema.SlotRequest{RunID: x.runID, StepID: s.ID, Prompt: prompt, MaxTokens: s.MaxTokens, Page: pageText(w)}, &rep)
	}
	if errors.Is(err, bus.ErrNoService) {
		return schema.TokenUsage{}, schema.Errorf(schema.CodeUnavailable, "step %s needs the planner (%s) and none answered", s.ID, source)
	}
	if err != nil {
		return schema.TokenUsage{}, err
	}
	x.calls = append(x.calls, &schema.LLMCall{Source: source, Usage: rep.Usage})
	value := rep.Value
	if s.Kind == schema.StepJudgment {
		if value, err = s.Choose(value, options); err != nil {
			return rep.Usage, err
		}
	}
	x.bindings.Steps[s.ID] = value
	return rep.Usage, nil
}

// pageText is the page as a model reads it: the whole distilled page when
// there is one, else the visible text or the tool result.
func pageText(w schema.World) string {
	if w.Render != "" {
		return w.Render
	}
	return w.Text
}
