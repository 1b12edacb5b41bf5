package matcher

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// maxCaptureWords bounds a parameter value read out of the task text: a
// longer capture has likely swallowed words the intent does not have.
const maxCaptureWords = 8

// Config configures the matcher.
type Config struct {
	// BindTimeout bounds the one model call that binds what the task does
	// not give; default 15 s.
	BindTimeout time.Duration
	// Log hears about each match and stored playbooks that do not
	// decode; default slog.Default().
	Log *slog.Logger
}

// Service answers rote.matcher.match.
type Service struct {
	cfg       Config
	rpc       *bus.RPC
	playbooks *bus.PlaybookStore
	log       *slog.Logger
	ready     chan struct{}
}

// New returns the matcher: it serves on rpc, reads the playbooks it
// matches from playbooks, and asks the planner over rpc for a binding.
func New(cfg Config, rpc *bus.RPC, playbooks *bus.PlaybookStore) (*Service, error) {
	if cfg.BindTimeout <= 0 {
		cfg.BindTimeout = 15 * time.Second
	}
	log := cmp.Or(cfg.Log, slog.Default()).With("service", "matcher")
	return &Service{cfg: cfg, rpc: rpc, playbooks: playbooks, log: log, ready: make(chan struct{})}, nil
}

// Ready is closed once the endpoint listens.
func (s *Service) Ready() <-chan struct{} { return s.ready }

// Run serves until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	svc, err := s.rpc.NewService("rote-matcher", "0.1.0", "which stored playbook can do a task")
	if err != nil {
		return err
	}
	defer svc.Stop()
	if err := bus.AddEndpoint(ctx, svc, "match", schema.SubjectMatch, true, s.Match); err != nil {
		return fmt.Errorf("matcher: %w", err)
	}
	close(s.ready)
	s.log.Info("serving", "subject", schema.SubjectMatch)
	<-ctx.Done()
	return nil
}

// candidate is one playbook scored against the task.
type candidate struct {
	entry    bus.PlaybookEntry
	playbook *schema.Playbook
	score    float64
}

// Match runs the three stages. A miss is a reply, not an error; the error
// is for a store that could not be read.
func (s *Service) Match(ctx context.Context, req *schema.MatchRequest) (*schema.MatchReply, error) {
	rep, err := s.match(ctx, req)
	if err == nil {
		if rep.Hit {
			s.log.Info("matched", "run", req.RunID, "playbook", rep.Playbook.Name, "version", rep.Playbook.Version, "score", rep.Score)
		} else {
			s.log.Info("no match", "run", req.RunID, "reason", rep.Reason)
		}
	}
	return rep, err
}

func (s *Service) match(ctx context.Context, req *schema.MatchRequest) (*schema.MatchReply, error) {
	if err := schema.ValidateFingerprint(req.Fingerprint); err != nil {
		return &schema.MatchReply{Reason: "no fingerprint: " + err.Error()}, nil
	}
	all, err := s.playbooks.List(ctx)
	if err != nil {
		return nil, err
	}
	slotted := schema.SlotOut(req.Task, req.Params)
	var cands []candidate
	for _, e := range all {
		if e.Fingerprint != req.Fingerprint {
			continue // stage 1: a hard gate, before any comparison
		}
		p, err := e.Decode()
		if err != nil {
			s.log.Warn("a stored playbook does not decode; it is never matched", "playbook", e.Name, "fingerprint", schema.ShortFingerprint(e.Fingerprint), "version", e.Stored.Version, "err", err)
			continue
		}
		cands = append(cands, candidate{entry: e, playbook: p, score: score(slotted, p.Intent)})
	}
	rep := &schema.MatchReply{Candidates: len(cands)}
	if len(cands) == 0 {
		rep.Reason = "no playbook is bound to this environment"
		return rep, nil
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return strings.Compare(a.entry.Name, b.entry.Name)
	})
	best := cands[0]
	rep.Score, rep.Playbook = best.score, schema.PlaybookRef{Name: best.entry.Name, Version: best.entry.Stored.Version}
	switch {
	case best.score < Threshold:
		rep.Reason = fmt.Sprintf("best intent %q (%s) scores %.2f, under %.2f", best.playbook.Intent, best.entry.Name, best.score, Threshold)
		return s.inOtherWords(ctx, req, cands, rep), nil
	case len(cands) > 1 && best.score-cands[1].score < Margin:
		rep.Reason = fmt.Sprintf("ambiguous: %s and %s both fit (%.2f, %.2f)", best.entry.Name, cands[1].entry.Name, best.score, cands[1].score)
		return rep, nil
	}
	bindings, usage, why := s.bind(ctx, req, slotted, best.playbook)
	rep.Usage = usage
	if why != "" {
		rep.Reason = why
		return rep, nil
	}
	rep.Hit, rep.Bindings = true, bindings
	return rep, nil
}

// maxShortlist is how many of the closest playbooks (sharing a content
// word with the task at least) are offered to the model as what a task
// may ask for in other words.
const maxShortlist = 3

// inOtherWords asks the model, in one bounded call, whether a task that
// no intent fits word for word asks for what one of the closest does, in
// other words. The values the model binds must stand in the task as
// whole words, each a phrase with no clause of its own, and fit the
// playbook's types. miss is the reply when anything falls short.
func (s *Service) inOtherWords(ctx context.Context, req *schema.MatchRequest, cands []candidate, miss *schema.MatchReply) *schema.MatchReply {
	short := shortlist(req, cands)
	if len(short) == 0 {
		return miss
	}
	intents := make([]string, len(short))
	for i, c := range short {
		intents[i] = c.playbook.Intent
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.BindTimeout)
	defer cancel()
	var rep schema.BindReply
	err := s.rpc.Call(ctx, schema.SubjectBind, &schema.BindRequest{RunID: req.RunID, Task: req.Task, Choices: intents}, &rep)
	miss.Usage = rep.Usage
	switch {
	case err != nil:
		miss.Reason += "; asking the model whether it fits in other words failed: " + err.Error()
		return miss
	case rep.Choice == 0:
		miss.Reason += "; the model found no playbook the task asks for in other words"
		return miss
	}
	chosen := short[rep.Choice-1]
	out := map[string]string{}
	for name := range chosen.playbook.Params {
		v, given := req.Params[name]
		if !given {
			v = strings.TrimSpace(rep.Values[name])
		}
		if !given && !wholeIn(req.Task, v) {
			miss.Reason += fmt.Sprintf("; the model chose %s, but its value for %s (%q) is no phrase of the task", chosen.entry.Name, name, v)
			return miss
		}
		out[name] = v
	}
	if _, err := chosen.playbook.Bind(out); err != nil {
		miss.Reason += fmt.Sprintf("; the model chose %s, but its values do not fit it: %v", chosen.entry.Name, err)
		return miss
	}
	return &schema.MatchReply{Hit: true, Playbook: schema.PlaybookRef{Name: chosen.entry.Name, Version: chosen.entry.Stored.Version}, Score: chosen.score,
		Candidates: miss.Candidates, Bindings: out, Usage: rep.Usage, Reason: "matched in other words by the model"}
}

// shortlist is the closest candidates (cands sorted best first) the
// model may be asked about. Only intents with at least as many clauses
// and negations as the task are offered: a task with a clause or a
// negation of its own ("... and delete user bob", "do not ...") is never
// sent. Nor is a playbook that takes none of a value the task gives by
// name: it would drop the value, so it does another task ("change the
// site title to {{title}}" is not "download the latest report" whatever
// words they share), and a site's tasks that open alike cost no call.
func shortlist(req *schema.MatchRequest, cands []candidate) []candidate {
	var short []candidate
	for _, c := range cands {
		if len(short) < maxShortlist && c.score > 0 && clauses(req.Task) <= clauses(c.playbook.Intent) && takesAll(c.playbook, req.Params) {
			short = append(short, c)
		}
	}
	return short
}

// takesAll reports whether playbook p declares every parameter given.
func takesAll(p *schema.Playbook, given map[string]string) bool {
	for name := range given {
		if _, ok := p.Params[name]; !ok {
			return false
		}
	}
	return true
}

// bind binds every declared parameter of p (stage 3), or says why not.
func (s *Service) bind(ctx context.Context, req *schema.MatchRequest, slotted string, p *schema.Playbook) (map[string]string, schema.TokenUsage, string) {
	out := map[string]string{}
	texts := captured(req.Task, p.Intent)
	slots := captured(slotted, p.Intent)
	var missing []string
	for name := range p.Params {
		if v, ok := req.Params[name]; ok {
			if got, ok := slots[name]; ok && got != "{{"+name+"}}" {
				return nil, schema.TokenUsage{}, fmt.Sprintf("the task's %s does not fill the intent's slot (the slot holds %q)", name, got)
			}
			out[name] = v
			continue
		}
		if v, ok := texts[name]; ok {
			out[name] = v
			continue
		}
		missing = append(missing, name)
	}
	var usage schema.TokenUsage
	if len(missing) > 0 {
		slices.Sort(missing)
		values, u, err := s.ask(ctx, req, p, missing)
		usage = u
		if err != nil {
			return nil, usage, fmt.Sprintf("cannot bind %s: %v", strings.Join(missing, ", "), err)
		}
		for _, name := range missing {
			v := values[name]
			if v == "" || !strings.Contains(req.Task, v) {
				return nil, usage, fmt.Sprintf("the model's value for %s (%q) is not in the task text", name, v)
			}
			out[name] = v
		}
	}
	if _, err := p.Bind(out); err != nil {
		return nil, usage, "the bindings do not fit the playbook: " + err.Error()
	}
	return out, usage, ""
}

// ask has the planner bind names from the task text: one bounded model
// call tagged matcher.
func (s *Service) ask(ctx context.Context, req *schema.MatchRequest, p *schema.Playbook, names []string) (map[string]string, schema.TokenUsage, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.BindTimeout)
	defer cancel()
	var rep schema.BindReply
	err := s.rpc.Call(ctx, schema.SubjectBind, &schema.BindRequest{RunID: req.RunID, Task: req.Task, Intent: p.Intent, Names: names}, &rep)
	if errors.Is(err, bus.ErrNoService) {
		return nil, schema.TokenUsage{}, errors.New("no planner answers binding requests")
	}
	if err != nil {
		return nil, schema.TokenUsage{}, err
	}
	return rep.Values, rep.Usage, nil
}
