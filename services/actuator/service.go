package actuator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/chromium"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/records"
)

// Config configures the actuator.
type Config struct {
	// Browsers is how many Chromium processes the pool may run; default 1.
	Browsers int
	// Chromium is the browser binary; default chromium.Path.
	Chromium string
	// Browser is the endpoint of a browser another process runs
	// (chromium.Attach: a ws:// DevTools address of one a user started,
	// or the unix: relay of one another rote process shares): sessions
	// open in it and none is launched. Empty launches up to Browsers of
	// its own, over pipes.
	Browser string
	// Share serves each browser this actuator launches to the other
	// processes of its user (chromium's relay), for a perception that
	// runs as a process of its own. A perception in this process needs
	// none.
	Share bool
	// Settle says when a page is settled; zero fields take DefaultSettle's.
	Settle SettleConfig
	// Instance names this actuator on the bus; default a new id.
	Instance string
	// ObserveTimeout bounds a request to perception; default 30 s.
	ObserveTimeout time.Duration
	// Host is where this actuator's browsers run, whose perception it
	// asks (schema.ObserveSubject(Host)); default bus.Host().
	Host string
	// Log hears about sessions opened and closed, crashed browsers and
	// actions that failed for a reason of the actuator's own; default
	// slog.Default().
	Log *slog.Logger
}

// Service holds browser sessions, one per run, and acts on them.
type Service struct {
	cfg  Config
	rpc  *bus.RPC
	runs *bus.RunLog
	log  *slog.Logger
	pool *pool

	mu       sync.Mutex
	sessions map[string]*session
	ready    chan struct{}
	// spare is a blank page made ready after a session closed, for the
	// next one to take instead of waiting for a browser context; warming
	// says one is being made, closed that the service stopped.
	spare   *session
	warming bool
	closed  bool
	closing sync.WaitGroup // pages being closed after their sessions ended
}

// New returns an actuator that serves on rpc, asks perception over it,
// and records every action in runs. It starts nothing until Run.
func New(cfg Config, rpc *bus.RPC, runs *bus.RunLog) (*Service, error) {
	if cfg.Browsers <= 0 {
		cfg.Browsers = 1
	}
	if cfg.Chromium == "" {
		cfg.Chromium = chromium.Path
	}
	if cfg.Host == "" {
		cfg.Host = bus.Host()
	}
	if cfg.Instance == "" {
		cfg.Instance = bus.NewID()
	}
	if cfg.ObserveTimeout <= 0 {
		cfg.ObserveTimeout = 30 * time.Second
	}
	cfg.Settle = cfg.Settle.orDefault()
	log := cmp.Or(cfg.Log, slog.Default()).With("service", "actuator", "instance", cfg.Instance)
	return &Service{cfg: cfg, rpc: rpc, runs: runs, log: log, sessions: map[string]*session{}, ready: make(chan struct{})}, nil
}

// Ready is closed once Run serves requests.
func (s *Service) Ready() <-chan struct{} { return s.ready }

// Instance returns the name this actuator serves under.
func (s *Service) Instance() string { return s.cfg.Instance }

// Run serves until ctx ends: it claims runs on schema.SubjectOpenSession
// (a queue group shared by every actuator) and serves act, observe and
// close for its runs on its own instance subjects. On return every session
// is closed and every browser stopped.
func (s *Service) Run(ctx context.Context) error {
	s.pool = newPool(ctx, s.cfg.Chromium, s.cfg.Browsers, s.cfg.Browser, s.cfg.Share)
	defer s.pool.close()
	defer s.closeAll()
	svc, err := s.rpc.NewService("rote-actuator", "0.1.0", "browser sessions and typed actions")
	if err != nil {
		return err
	}
	defer svc.Stop()
	inst := s.cfg.Instance
	for _, e := range []error{
		bus.AddEndpoint(ctx, svc, "open", schema.SubjectOpenSession, true, s.open),
		bus.AddEndpoint(ctx, svc, "act", schema.ActuatorSubject(inst, schema.EndpointAct), false, s.act),
		bus.AddEndpoint(ctx, svc, "observe", schema.ActuatorSubject(inst, schema.EndpointObserve), false, s.observe),
		bus.AddEndpoint(ctx, svc, "close", schema.ActuatorSubject(inst, schema.EndpointClose), false, s.closeSession),
		bus.AddEndpoint(ctx, svc, "adopt", schema.ActuatorSubject(inst, schema.EndpointAdopt), false, s.adopt),
		bus.AddEndpoint(ctx, svc, "alive", schema.ActuatorSubject(inst, schema.EndpointAlive), false, alive),
	} {
		if e != nil {
			return fmt.Errorf("actuator: %w", e)
		}
	}
	close(s.ready)
	s.log.Info("serving", "browsers", s.cfg.Browsers, "host", s.cfg.Host)
	<-ctx.Done()
	return nil
}

// alive answers a caller that wants to know this instance still runs.
func alive(context.Context, *struct{}) (*struct{}, error) { return &struct{}{}, nil }

// open pins a run to this instance with a fresh browser context. Opening
// a run that already has a session here returns that session.
func (s *Service) open(ctx context.Context, req *schema.OpenSessionRequest) (*schema.OpenSessionReply, error) {
	if err := schema.ValidateRunID(req.RunID); err != nil {
		return nil, err
	}
	origins, err := sessionOrigins(req.Origins)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess := s.sessions[req.RunID]; sess != nil && sess.browser.proc.Alive() {
		return &schema.OpenSessionReply{Instance: s.cfg.Instance, Browser: sess.ref}, nil
	}
	b, err := s.pool.acquire(ctx)
	if errors.Is(err, chromium.ErrUnreachable) {
		return nil, schema.Errorf(schema.CodeUnavailable, "%v", err)
	}
	if err != nil {
		s.log.Error("no browser for a session", "run", req.RunID, "err", err)
		return nil, schema.Errorf(schema.CodeBrowserCrashed, "%v", err)
	}
	sess, err := s.takeSpare(b, req.RunID, origins)
	if sess == nil {
		sess, err = openSession(b, req.RunID, origins)
	}
	if err != nil {
		s.pool.release(b)
		if s.cfg.Browser != "" && errors.Is(err, schema.ErrInternal) {
			// The browser answers but gives no page: another id, another
			// protocol, a DevTools endpoint that is no Chromium's.
			return nil, schema.Errorf(schema.CodeUnavailable, "the browser at %s gives no page: %v", s.cfg.Browser, err)
		}
		return nil, err
	}
	s.sessions[req.RunID] = sess
	s.log.Debug("session opened", "run", req.RunID)
	return &schema.OpenSessionReply{Instance: s.cfg.Instance, Browser: sess.ref}, nil
}

// maxSessionOrigins bounds the origins a session request may name.
const maxSessionOrigins = 32

// sessionOrigins checks the origins a session request confines it to.
func sessionOrigins(in []string) ([]string, error) {
	if len(in) > maxSessionOrigins {
		return nil, schema.Errorf(schema.CodeInvalid, "a session confined to %d origins: at most %d", len(in), maxSessionOrigins)
	}
	out := make([]string, 0, len(in))
	for _, o := range in {
		norm, err := schema.ParseOrigin(o)
		if err != nil {
			return nil, err
		}
		out = append(out, norm)
	}
	return out, nil
}

// adopt re-keys run From's session to run To: the page, its history and
// its cookies carry on under the new run.
func (s *Service) adopt(_ context.Context, req *schema.AdoptSessionRequest) (*schema.OpenSessionReply, error) {
	if err := schema.ValidateRunID(req.To); err != nil {
		return nil, err
	}
	sess, err := s.session(req.From)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.sessions[req.To]; taken {
		return nil, schema.Errorf(schema.CodeInvalid, "run %s already has a session", req.To)
	}
	sess.mu.Lock()
	sess.runID, sess.seq = req.To, 0 // the new run numbers its events from the start
	sess.mu.Unlock()
	delete(s.sessions, req.From)
	s.sessions[req.To] = sess
	return &schema.OpenSessionReply{Instance: s.cfg.Instance, Browser: sess.ref}, nil
}

func (s *Service) session(runID string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.sessions[runID]
	if sess == nil {
		return nil, schema.Errorf(schema.CodeNoSession, "actuator %s holds no session for run %s", s.cfg.Instance, runID)
	}
	if !sess.browser.proc.Alive() {
		s.dropLocked(runID)
		s.log.Warn("the browser under a session died", "run", runID)
		return nil, schema.Errorf(schema.CodeBrowserCrashed, "the browser of run %s died; open a new session", runID)
	}
	return sess, nil
}

func (s *Service) closeSession(ctx context.Context, req *schema.CloseSessionRequest) (*struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLocked(req.RunID)
	return &struct{}{}, nil
}

func (s *Service) dropLocked(runID string) {
	sess := s.sessions[runID]
	if sess == nil {
		return
	}
	s.pool.release(sess.browser)
	delete(s.sessions, runID)
	s.log.Debug("session closed", "run", runID)
	if s.closed {
		sess.close()
		return
	}
	// The browser disposes of the page after the caller has its answer;
	// then, while no run waits, it makes the next session's page.
	s.closing.Add(1)
	go func() {
		defer s.closing.Done()
		sess.close()
		if sess.browser.proc.Alive() {
			s.mu.Lock()
			s.warm(sess.browser)
			s.mu.Unlock()
		}
	}()
}

// takeSpare gives the spare page to runID's session, confined to
// origins, when it is on b and b lives; nil when there is none to take
// (a spare on another browser is closed). The caller holds mu.
func (s *Service) takeSpare(b *browser, runID string, origins []string) (*session, error) {
	sp := s.spare
	s.spare = nil
	if sp == nil {
		return nil, nil
	}
	if sp.browser != b || !b.proc.Alive() {
		sp.close()
		return nil, nil
	}
	if err := sp.confine(runID, origins); err != nil {
		sp.close()
		return nil, nil // a fresh page is opened instead
	}
	return sp, nil
}

// warm makes a spare page on b in the background, unless one is there
// or on its way. The caller holds mu.
func (s *Service) warm(b *browser) {
	if s.spare != nil || s.warming || s.closed {
		return
	}
	s.warming = true
	go func() {
		sp, err := newPage(b)
		if err == nil {
			// Perception attaches to the page now, not at the run's
			// first look: a blank page's capture, recorded nowhere.
			ctx, cancel := context.WithTimeout(s.pool.parent, s.cfg.ObserveTimeout)
			_, err = s.perceive(ctx, sp, &schema.ObserveRequest{NodesOnly: true})
			cancel()
			if err != nil {
				sp.close()
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.warming = false
		switch {
		case err != nil:
			s.log.Debug("no spare page", "err", err)
		case s.closed || s.spare != nil:
			sp.close()
		default:
			s.spare = sp
		}
	}()
}

func (s *Service) closeAll() {
	defer s.closing.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.spare != nil {
		s.spare.close()
		s.spare = nil
	}
	for id := range s.sessions {
		s.dropLocked(id)
	}
}

// observe settles the run's page and has perception observe it; the
// observation is recorded under the run.
func (s *Service) observe(ctx context.Context, req *schema.SessionObserveRequest) (*schema.SessionObserveReply, error) {
	sess, err := s.session(req.RunID)
	if err != nil {
		return nil, err
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	wait, held, err := sess.settle(ctx, s.cfg.Settle)
	if err == nil {
		err = sess.gate.take()
	}
	if err != nil {
		return nil, s.stopping(ctx, req.RunID, err)
	}
	settled := held == ""
	obs, err := s.perceive(ctx, sess, &schema.ObserveRequest{RunID: req.RunID, StepID: req.StepID, Seq: sess.nextSeq(), Diff: req.Diff, Budget: req.Budget, Settled: wait, Unsettled: !settled, HeldBy: held})
	if err != nil {
		return nil, s.stopping(ctx, req.RunID, err)
	}
	if settled {
		sess.remember(obs.Nodes)
	}
	rep := &schema.SessionObserveReply{Observation: *obs, SettleWait: wait, Settled: settled}
	if !sess.began.IsZero() {
		rep.Sent = append(sess.net.sentSince(sess.began, false), sess.watched.wroteSince(sess.began)...)
		rep.Changed = sess.watched.changedSince(sess.before, sess.net.sentSince(sess.began, true))
	}
	return rep, nil
}

// perceive asks perception for an observation of the session's page,
// with the secrets the run has typed masked.
func (s *Service) perceive(ctx context.Context, sess *session, req *schema.ObserveRequest) (*schema.Observation, error) {
	req.Browser, req.Secrets = sess.ref, sess.secrets
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ObserveTimeout)
	defer cancel()
	var rep schema.ObserveReply
	if err := s.rpc.Call(ctx, schema.ObserveSubject(s.cfg.Host), req, &rep); err != nil {
		if errors.Is(err, bus.ErrNoService) {
			return nil, schema.Errorf(schema.CodeInternal, "no perception service runs on this actuator's host %s: %v", s.cfg.Host, err)
		}
		return nil, sess.fail(err)
	}
	return &rep.Observation, nil
}

// act performs one action on the run's page and records it as
// browser.action.v1, whether it succeeded or was refused. A failed action
// is a reply whose event carries the error; the request itself fails
// only when there is no session to act on.
func (s *Service) act(ctx context.Context, req *schema.ActRequest) (*schema.ActReply, error) {
	sess, err := s.session(req.RunID)
	if err != nil {
		return nil, err
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.learnSecrets(req.Secrets)
	ev := schema.BrowserAction{RunID: req.RunID, StepID: req.StepID, Action: req.Action}
	ev.Seq = sess.nextSeq()
	ev.Meta = schema.Meta{ID: req.RunID + "-b" + strconv.FormatUint(ev.Seq, 10), Time: time.Now()}
	start := time.Now()
	marked := sess.acted
	output, resolution, err := s.perform(ctx, sess, &ev)
	err = s.stopping(ctx, req.RunID, err)
	if sess.acted == marked {
		// Unless perform marked it and settled after it (a guarded send):
		// marked again now, the next action would wait out its window twice.
		sess.acted, sess.actedKind = time.Now(), req.Action.Kind
	}
	sess.forget(req.Action.Kind)
	ev.Duration, ev.Output, ev.Resolution = time.Since(start), output, resolution
	ev.Dialogs = sess.dialogs.take()
	if err != nil {
		ev.Error = schema.AsError(err)
	}
	redactSecrets(&ev, req.Secrets)
	if ev.Action.Validate() != nil {
		// An action outside the closed set cannot be recorded as one.
		return &schema.ActReply{Event: ev}, nil
	}
	if _, perr := s.runs.Publish(ctx, &ev); perr != nil {
		return nil, fmt.Errorf("actuator: record action: %w", perr)
	}
	return &schema.ActReply{Event: ev}, nil
}

// stopping turns a failure that came from this actuator shutting down
// (its context ended under the action) into CodeNoSession: the session
// ends with the actuator, and the run may be tried again elsewhere.
func (s *Service) stopping(ctx context.Context, runID string, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	return schema.Errorf(schema.CodeNoSession, "actuator %s is shutting down; run %s's browser session ends with it (%v)", s.cfg.Instance, runID, err)
}

// redactSecrets replaces every secret value in what ev records (the typed
// value, the URL, a done or fail reason, what was read, an error
// message), in clear or encoded,
// with {{name}}: the run log never holds a secret.
func redactSecrets(ev *schema.BrowserAction, secrets map[string]string) {
	if len(secrets) == 0 {
		return
	}
	ev.Action.Value = schema.MaskSecrets(ev.Action.Value, secrets)
	ev.Action.URL = schema.MaskSecrets(ev.Action.URL, secrets)
	ev.Action.Reason = schema.MaskSecrets(ev.Action.Reason, secrets)
	ev.Output = schema.MaskSecrets(ev.Output, secrets)
	for i, d := range ev.Dialogs {
		ev.Dialogs[i] = schema.MaskSecrets(d, secrets)
	}
	if ev.Error != nil {
		ev.Error.Message = schema.MaskSecrets(ev.Error.Message, secrets)
	}
}

// resolveRecorded resolves ev's target on a page, by its pick when it
// has one, and records on ev what a choice was made among: the pick's
// evaluation, or the sibling records a clicked, hovered or dragged
// control was one of.
func resolveRecorded(ev *schema.BrowserAction, nodes []schema.ObservedNode) (*schema.ObservedNode, schema.Resolution, error) {
	t := ev.Action.Target
	if t.Pick != nil {
		i, why, err := records.Choose(t.Pick, t.Role, nodes)
		if err != nil {
			return nil, "", err
		}
		ev.Picked = why
		return &nodes[i], schema.ResolvedByRule, nil
	}
	node, r, err := resolve(t, nodes)
	kind := ev.Action.Kind
	if err != nil || (kind != schema.ActClick && kind != schema.ActHover && kind != schema.ActDrag && kind != schema.ActCheck) {
		return node, r, err
	}
	for i := range nodes {
		if &nodes[i] != node {
			continue
		}
		// A box is ticked among others only by its place: ticked by its
		// name, it is the box its name says.
		if set, chosen, ok := records.Around(nodes, i); ok && kind != schema.ActCheck {
			ev.Among, ev.Chosen = &set, chosen
		} else if set, chosen, ok := records.Places(nodes, i); ok {
			ev.Among, ev.Chosen = &set, chosen
		}
	}
	return node, r, nil
}

// resolveOn resolves ev's target on the page's kept capture when the
// page is unchanged since it and the browser still gives the node found
// its role and name, else on a fresh capture, which is kept. It returns
// the capture's nodes and the node.
func (s *Service) resolveOn(ctx context.Context, sess *session, ev *schema.BrowserAction) ([]schema.ObservedNode, *schema.ObservedNode, schema.Resolution, error) {
	if nodes, proof := sess.kept(); nodes != nil {
		found := *ev
		node, r, err := resolveRecorded(&found, nodes)
		if err == nil && sess.stillIs(node) && (!proof || (ev.Action.Target.Pick == nil && sess.proven(node, nodes))) {
			*ev = found
			return nodes, node, r, nil
		}
	}
	obs, err := s.perceive(ctx, sess, &schema.ObserveRequest{NodesOnly: true})
	if err != nil {
		return nil, nil, "", err
	}
	sess.remember(obs.Nodes)
	node, r, err := resolveRecorded(ev, obs.Nodes)
	return obs.Nodes, node, r, err
}

// dropPlace resolves where a drag drops, on the page the drag's target
// was resolved on, and records what it resolved to. A drop on the
// element dragged is refused.
func (s *Service) dropPlace(ctx context.Context, ev *schema.BrowserAction, nodes []schema.ObservedNode, sess *session) (*element, error) {
	node, _, err := resolve(ev.Action.To, nodes)
	if err != nil {
		return nil, fmt.Errorf("drag: the drop place: %w", err)
	}
	if ev.Action.Target != nil && node.ID == ev.Action.Target.ID {
		return nil, schema.Errorf(schema.CodeInvalid, "drag: %s is dropped on itself", node.ID)
	}
	to := *ev.Action.To
	to.ID, to.Role, to.Name = node.ID, node.Role, node.Name
	ev.Action.To = &to
	return sess.element(ctx, node)
}

// read performs an extract of no one element: the first records of a
// list its target picks (a count), or the page's main text, recording
// the lists the page showed, for the distiller to tell which of them an
// answer read.
func (s *Service) read(ctx context.Context, sess *session, ev *schema.BrowserAction) (string, schema.Resolution, error) {
	obs, err := s.perceive(ctx, sess, &schema.ObserveRequest{NodesOnly: true})
	if err != nil {
		return "", "", err
	}
	a := ev.Action
	if a.Value == "" {
		ev.Lists = records.Lists(obs.Nodes)
		text, err := sess.extract(nil)
		return text, "", err
	}
	n, _ := strconv.Atoi(a.Value) // validated
	names, why, err := records.Take(a.Target.Pick, a.Target.Role, obs.Nodes, n)
	if err != nil {
		return "", "", err
	}
	ev.Picked = why
	return strings.Join(names, "\n"), schema.ResolvedByRule, nil
}

// perform settles, resolves and dispatches one action. It returns the
// extracted text of an extract and the rung that resolved the target.
func (s *Service) perform(ctx context.Context, sess *session, ev *schema.BrowserAction) (string, schema.Resolution, error) {
	a := ev.Action
	if err := a.Validate(); err != nil {
		return "", "", err
	}
	if err := a.ValidatePick(); err != nil {
		return "", "", err
	}
	wait, held, err := sess.settle(ctx, s.cfg.Settle)
	if err == nil && held != "" {
		ev.Unsettled, ev.HeldBy = true, held
	}
	ev.SettleWait = wait
	if err == nil {
		err = sess.gate.take() // a load refused since the last look: the page did not go where the run meant
	}
	if err != nil {
		return "", "", err
	}
	t := &ev.Timing
	began := time.Now()
	sess.began, sess.before = began, sess.watched // what the page does from here is this action's doing
	switch a.Kind {
	case schema.ActNavigate:
		defer func() { t.Dispatch = time.Since(began) }()
		stopped, err := sess.navigate(a.URL) // it takes the gate's word on the load
		if stopped {
			ev.Unsettled, ev.HeldBy = true, fmt.Sprintf("its load not ending within %s: stopped", loadWait)
		}
		return "", "", err
	case schema.ActDone, schema.ActFail:
		return "", "", nil
	}
	if a.Kind == schema.ActExtract && (a.Value != "" || a.Target.Empty()) {
		defer func() { t.Resolve = time.Since(began) }()
		return s.read(ctx, sess, ev)
	}
	var el, drop *element
	var rung schema.Resolution
	var current *schema.Contract // the resolved control's contract, read now
	if !a.Target.Empty() {
		nodes, node, r, err := s.resolveOn(ctx, sess, ev)
		if err != nil {
			return "", "", err
		}
		rung = r
		// Record what the target resolved to: its id, role, name and
		// contract are what a playbook distilled from this run aims at.
		resolved := *a.Target
		resolved.ID, resolved.Role, resolved.Name = node.ID, node.Role, node.Name
		if resolved.Contract == nil {
			resolved.Contract = node.Contract
		}
		if twins := twinsOf(node.ID, nodes); resolved.Pick == nil && byPlace(node, node.Contract, twins) {
			resolved.Twins = len(twins) // its place holds while as many are shown
		}
		ev.Action.Target = &resolved
		if err := a.Target.Contract.Check(node.Contract); err != nil {
			return "", rung, err
		}
		if err := a.Target.Contract.CheckSending(node.Contract, a.Kind); err != nil {
			return "", rung, err
		}
		current = node.Contract
		if err := usable(a.Kind, node); err != nil {
			return "", rung, err
		}
		if el, err = sess.element(ctx, node); err != nil {
			return "", rung, err
		}
		if a.Kind == schema.ActDrag {
			if drop, err = s.dropPlace(ctx, ev, nodes, sess); err != nil {
				return "", rung, err
			}
		}
	}
	// A recorded control is held to where it sends now, as just read and
	// checked against its record: what leaves must go there; one that
	// sends nowhere may not now send what the run typed.
	var guard *sendGuard
	if a.Target != nil && a.Target.Contract != nil {
		if guard, err = sess.guardSend(current, a.Kind); err != nil {
			return "", rung, err
		}
	}
	t.Resolve = time.Since(began)
	began = time.Now()
	switch a.Kind {
	case schema.ActClick:
		err = sess.click(el)
	case schema.ActHover:
		err = sess.hover(el)
	case schema.ActDrag:
		err = sess.drag(el, drop)
	case schema.ActSetValue:
		err = sess.setValue(el, a.Value)
	case schema.ActFill:
		err = sess.fill(el, a.Value)
	case schema.ActSelect:
		ev.Options, err = sess.selectOption(el, a.Value)
	case schema.ActCheck:
		err = sess.check(el, a.Value != "false")
	case schema.ActPress:
		err = sess.press(el, a.Value)
	case schema.ActExtract:
		text, err := sess.extract(el)
		t.Dispatch = time.Since(began)
		return text, rung, err
	}
	t.Dispatch = time.Since(began)
	if err == nil && (a.Kind == schema.ActFill || a.Kind == schema.ActSetValue || a.Kind == schema.ActSelect) {
		sess.typed.Add(a.Value)
	}
	if guard != nil {
		began = time.Now()
		defer func() { t.Send = time.Since(began) }()
		// What the action sent leaves after it: held until the page
		// settles, then the guard says whether it went where recorded.
		sess.acted, sess.actedKind = time.Now(), a.Kind
		var serr error
		if err == nil && !guard.nothing && !sess.downloads(el) {
			serr = sess.awaitSend(ctx, s.cfg.Settle)
		}
		if serr == nil {
			var held string
			if _, held, serr = sess.settle(ctx, s.cfg.Settle); serr == nil && held != "" {
				ev.Unsettled, ev.HeldBy = true, held
			}
		}
		if gerr := sess.disarm(guard); gerr != nil && (err == nil || errors.Is(gerr, schema.ErrContractChanged)) {
			err = gerr
		}
		if err == nil {
			err = serr
		}
	}
	if err == nil {
		err = sess.gate.take()
	}
	return "", rung, err
}
