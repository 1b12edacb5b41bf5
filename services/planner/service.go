package planner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/prompt"
)

const judgmentSystemPrompt = `You classify what a page shows into exactly one of a fixed set of options. Read the question and the page, and answer with one option exactly as it is written, and nothing else.`

const slotSystemPrompt = `You read one value off a page. Read the question and the page, and answer with the value only, and nothing else.`

// Service answers the playbook executor's model-backed steps over the
// bus: slot values (rote.planner.slot), judgments (rote.planner.judgment)
// and scoped repairs (rote.planner.repair), each one bounded model call
// tagged with its source and recorded in the asking run.
type Service struct {
	rpc   *bus.RPC
	llm   *LLM
	log   *slog.Logger
	ready chan struct{}
}

// Config configures the planner service.
type Config struct {
	// Log hears when the endpoints serve; default slog.Default(). Failed
	// requests are logged by the bus.
	Log *slog.Logger
}

// New returns the planner service, which serves on rpc and asks llm.
func New(cfg Config, rpc *bus.RPC, llm *LLM) (*Service, error) {
	if llm == nil {
		return nil, errors.New("planner: no model")
	}
	log := cmp.Or(cfg.Log, slog.Default()).With("service", "planner")
	return &Service{rpc: rpc, llm: llm, log: log, ready: make(chan struct{})}, nil
}

// Ready is closed once the endpoints listen.
func (s *Service) Ready() <-chan struct{} { return s.ready }

// Run serves until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	svc, err := s.rpc.NewService("rote-planner", "0.1.0", "model-backed slot values, judgments and scoped repairs")
	if err != nil {
		return err
	}
	defer svc.Stop()
	for _, e := range []error{
		bus.AddEndpoint(ctx, svc, "judgment", schema.SubjectJudgment, true, s.judgment),
		bus.AddEndpoint(ctx, svc, "slot", schema.SubjectSlot, true, s.slot),
		bus.AddEndpoint(ctx, svc, "repair", schema.SubjectRepair, true, s.repair),
		bus.AddEndpoint(ctx, svc, "bind", schema.SubjectBind, true, s.bind),
	} {
		if e != nil {
			return fmt.Errorf("planner: %w", e)
		}
	}
	close(s.ready)
	s.log.Info("serving", "model", s.llm.Model())
	<-ctx.Done()
	return nil
}

func (s *Service) judgment(ctx context.Context, req *schema.JudgmentRequest) (*schema.ModelReply, error) {
	if len(req.Options) == 0 {
		return nil, schema.Errorf(schema.CodeInvalid, "judgment %s has no options", req.StepID)
	}
	user := prompt.Question + oneLine(req.Prompt) + "\n" + prompt.Options + strings.Join(req.Options, " | ") + "\n\n" + prompt.Page + "\n" + req.Page
	return s.ask(ctx, req.RunID, req.StepID, schema.SourceJudgment, judgmentSystemPrompt, user, req.MaxTokens)
}

func (s *Service) slot(ctx context.Context, req *schema.SlotRequest) (*schema.ModelReply, error) {
	user := prompt.Question + oneLine(req.Prompt) + "\n\n" + prompt.Page + "\n" + req.Page
	return s.ask(ctx, req.RunID, req.StepID, schema.SourceSlot, slotSystemPrompt, user, req.MaxTokens)
}

const bindSystemPrompt = `You read parameter values out of a task. You see the task, the intent it should fit (with {{name}} slots) and the names to bind. Answer with one JSON object mapping each name to its value, copied exactly as the task writes it, and nothing else. Leave out a name the task does not give.`

const chooseSystemPrompt = `You decide whether a task asks for exactly what one of a few stored playbooks does, in other words. You see the task and the playbooks' intents, numbered, with {{name}} slots. A task that asks for more (another clause, another object), for less, for something else, or that negates the intent, fits none. Answer with one JSON object and nothing else: {"choice": N, "values": {"name": "value"}} with N the number of the one intent the task asks for and every slot's value copied exactly as the task writes it, or {"choice": 0} when none fits.`

// maxChooseChars bounds what a choose call sends the model: about 400
// tokens at the three characters a token that names and values of
// Latin text average at least.
const maxChooseChars = 1200

// choose answers a bind request with choices: which shortlisted intent
// the task asks for in other words, and its values; one bounded call
// (source matcher). A prompt over the bound is refused, never cut.
func (s *Service) choose(ctx context.Context, req *schema.BindRequest) (*schema.BindReply, error) {
	var b strings.Builder
	b.WriteString(prompt.Task + oneLine(req.Task) + "\n" + prompt.Choices + "\n")
	for i, c := range req.Choices {
		fmt.Fprintf(&b, "%d. %s\n", i+1, oneLine(c))
	}
	user := b.String()
	if n := len(chooseSystemPrompt) + len(user); n > maxChooseChars {
		return nil, schema.Errorf(schema.CodeTooLarge, "the choice would send the model %d characters, over the %d of a bounded matcher call", n, maxChooseChars)
	}
	rep, err := s.ask(ctx, req.RunID, "match", schema.SourceMatcher, chooseSystemPrompt, user, 128)
	if err != nil {
		return nil, err
	}
	var answer struct {
		Choice int               `json:"choice"`
		Values map[string]string `json:"values"`
	}
	if err := json.Unmarshal([]byte(rep.Value), &answer); err != nil || answer.Choice < 0 || answer.Choice > len(req.Choices) {
		return nil, schema.Errorf(schema.CodeInvalid, "the model's choice is not {\"choice\": 0..%d, \"values\": {...}}: %q", len(req.Choices), rep.Value)
	}
	return &schema.BindReply{Values: answer.Values, Choice: answer.Choice, Usage: rep.Usage}, nil
}

// bind answers rote.planner.bind for the matcher: one bounded call
// (source matcher) whose answer must be a JSON object of strings; with
// choices, see choose.
func (s *Service) bind(ctx context.Context, req *schema.BindRequest) (*schema.BindReply, error) {
	if len(req.Choices) > 0 {
		return s.choose(ctx, req)
	}
	user := prompt.Intent + oneLine(req.Intent) + "\n" + prompt.Task + oneLine(req.Task) + "\n" + prompt.Bind + strings.Join(req.Names, ", ")
	rep, err := s.ask(ctx, req.RunID, "match", schema.SourceMatcher, bindSystemPrompt, user, 256)
	if err != nil {
		return nil, err
	}
	values := map[string]string{}
	if err := json.Unmarshal([]byte(rep.Value), &values); err != nil {
		return nil, schema.Errorf(schema.CodeInvalid, "the model's binding is not a JSON object of strings: %v", err)
	}
	return &schema.BindReply{Values: values, Usage: rep.Usage}, nil
}

// ask makes one bounded call and returns its answer, trimmed and out of
// any code fence around it.
func (s *Service) ask(ctx context.Context, runID, stepID string, source schema.Source, system, user string, maxTokens int) (*schema.ModelReply, error) {
	if maxTokens <= 0 {
		maxTokens = 64
	}
	rep, err := s.llm.Complete(ctx, Call{RunID: runID, StepID: stepID, Source: source, MaxTokens: maxTokens,
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: system}, {Role: openai.ChatMessageRoleUser, Content: user}}})
	if err != nil {
		return nil, err
	}
	return &schema.ModelReply{Value: unfence(rep.Content), Usage: rep.Event.Usage}, nil
}
