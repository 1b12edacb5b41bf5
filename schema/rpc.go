package schema

import (
	"strings"
	"time"
)

// Request/reply subjects between services. Like stream names, they are a
// contract between deployments.
const (
	// SubjectObserve prefixes perception's observe endpoints, one per
	// host (ObserveSubject), each a queue group.
	SubjectObserve = "rote.perception.observe"
	// SubjectOpenSession is where any actuator instance claims a browser
	// session for a run (a queue group).
	SubjectOpenSession = "rote.actuator.open"
)

// ObserveSubject returns the observe endpoint of the perception instances
// on host. A browser's DevTools endpoint listens on its own host's
// loopback, so only perception on that host (the same machine, or the
// same Kubernetes pod) can capture its pages.
func ObserveSubject(host string) string {
	token := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, host)
	if token == "" {
		token = "_"
	}
	return SubjectObserve + "." + token
}

// ActuatorSubject returns the subject of one actuator instance's
// endpoint: once a run is pinned to an instance, everything about the run
// goes there.
func ActuatorSubject(instance, endpoint string) string {
	return "rote.actuator." + instance + "." + endpoint
}

// Actuator endpoints under ActuatorSubject.
const (
	EndpointAct     = "act"
	EndpointObserve = "observe"
	EndpointClose   = "close"
	EndpointAdopt   = "adopt"
	// EndpointAlive answers at once while the instance runs: a caller
	// waiting on a long call asks it to tell a slow actuator from a dead
	// one.
	EndpointAlive = "alive"
)

// AdoptSessionRequest hands run From's session, page and cookies as they
// are, to run To: an agent run that continues where a replay stopped.
type AdoptSessionRequest struct {
	From string `msgpack:"from"`
	To   string `msgpack:"to"`
}

// BrowserRef locates a page: how to reach its browser (chromium's
// endpoints: the browser's own process, a relay another process of the
// same user serves, or the DevTools address of a browser a user started)
// and the page target in it.
type BrowserRef struct {
	Endpoint string `msgpack:"endpoint" json:"endpoint"`
	TargetID string `msgpack:"target_id" json:"target_id"`
}

// ObserveRequest asks perception to capture and distill a page.
type ObserveRequest struct {
	RunID   string     `msgpack:"run_id,omitempty"` // empty: observe without recording
	StepID  string     `msgpack:"step_id,omitempty"`
	Seq     uint64     `msgpack:"seq,omitempty"` // the browser.observed.v1 sequence number
	Browser BrowserRef `msgpack:"browser"`
	// Diff asks for a diff against the run's last grounded observation.
	// Without one (a first or replacement observation) the render is full.
	Diff bool `msgpack:"diff,omitempty"`
	// NodesOnly asks for the page's nodes alone, to resolve a target on:
	// no text, no render, nothing recorded or grounded.
	NodesOnly bool `msgpack:"nodes_only,omitempty"`
	// Budget is the ordinary render budget in characters; 0 means the
	// service's default.
	Budget int `msgpack:"budget,omitempty"`
	// Secrets (name to value) are the run's secrets: the observation, and
	// what is recorded of it, show each as {{name}} (Observation.MaskSecrets).
	Secrets map[string]string `msgpack:"secrets,omitempty"`
	// Settled is how long the page took to settle before this request:
	// recorded with the observation.
	Settled time.Duration `msgpack:"settled,omitempty"`
	// Unsettled says that wait gave up at its cap, and HeldBy what held
	// the page.
	Unsettled bool   `msgpack:"unsettled,omitempty"`
	HeldBy    string `msgpack:"held_by,omitempty"`
}

// ObserveReply carries an observation or the reason there is none.
type ObserveReply struct {
	Observation Observation `msgpack:"observation"`
}

// OpenSessionRequest claims a browser session for a run.
type OpenSessionRequest struct {
	RunID string `msgpack:"run_id"`
	// Origins confine the session: its page loads only from these
	// origins (schema.Origin's form), and any other is refused in the
	// browser as out_of_origin. Empty: any http or https origin.
	Origins []string `msgpack:"origins,omitempty"`
}

// OpenSessionReply says which actuator instance holds the run's session;
// every later request for the run goes to that instance's subjects.
type OpenSessionReply struct {
	Instance string     `msgpack:"instance"`
	Browser  BrowserRef `msgpack:"browser"`
}

// ActRequest asks the pinned actuator to perform one action.
type ActRequest struct {
	RunID  string `msgpack:"run_id"`
	StepID string `msgpack:"step_id,omitempty"`
	Action Action `msgpack:"action"`
	// Secrets maps secret parameter names to their values: the action may
	// type them, but the recorded event shows {{name}} wherever one
	// appears.
	Secrets map[string]string `msgpack:"secrets,omitempty"`
}

// ActReply is the recorded action: the browser.action.v1 event.
type ActReply struct {
	Event BrowserAction `msgpack:"event"`
}

// SessionObserveRequest asks the pinned actuator to settle the page and
// have it observed.
type SessionObserveRequest struct {
	RunID  string `msgpack:"run_id"`
	StepID string `msgpack:"step_id,omitempty"`
	Diff   bool   `msgpack:"diff,omitempty"`
	Budget int    `msgpack:"budget,omitempty"`
}

// SessionObserveReply is the observation and how long the page took to
// settle before it.
type SessionObserveReply struct {
	Observation Observation   `msgpack:"observation"`
	SettleWait  time.Duration `msgpack:"settle_wait"`
	Settled     bool          `msgpack:"settled"`
	// Sent is what the page sent since the session's last action began
	// that may change something elsewhere: requests of any method but
	// GET, HEAD and OPTIONS ("POST url"), frames on its sockets, beacons,
	// messages to its workers. Changed is what shows that the action did
	// anything at all: "a new document", "its DOM", the requests it
	// started. What doing that action again could repeat.
	Sent    []string `msgpack:"sent,omitempty"`
	Changed []string `msgpack:"changed,omitempty"`
}

// CloseSessionRequest ends a run's browser session.
type CloseSessionRequest struct {
	RunID string `msgpack:"run_id"`
}

// Planner endpoints the executor asks for model-backed steps (queue
// groups). While no planner answers, a slot or judgment step cannot run
// and a repair is unavailable: the replay falls back.
const (
	SubjectSlot     = "rote.planner.slot"
	SubjectJudgment = "rote.planner.judgment"
	SubjectRepair   = "rote.planner.repair"
)

// SlotRequest asks the planner for one value within a token budget.
type SlotRequest struct {
	RunID     string `msgpack:"run_id"`
	StepID    string `msgpack:"step_id"`
	Prompt    string `msgpack:"prompt"`
	MaxTokens int    `msgpack:"max_tokens"`
	Page      string `msgpack:"page,omitempty"` // what the page or tool shows now
}

// JudgmentRequest asks the planner to pick one of Options.
type JudgmentRequest struct {
	RunID     string   `msgpack:"run_id"`
	StepID    string   `msgpack:"step_id"`
	Prompt    string   `msgpack:"prompt"`
	Options   []string `msgpack:"options"`
	MaxTokens int      `msgpack:"max_tokens"`
	Page      string   `msgpack:"page,omitempty"`
}

// ModelReply is a planner's answer to a slot or judgment request, with
// what the model call cost (recorded by the planner as llm.call.v1).
type ModelReply struct {
	Value string     `msgpack:"value"`
	Usage TokenUsage `msgpack:"usage"`
}

// RepairRequest asks the planner for one replacement step: it sees only
// the failed step, what it expected, why it failed and the page now.
type RepairRequest struct {
	RunID    string      `msgpack:"run_id"`
	Playbook PlaybookRef `msgpack:"playbook"`
	Intent   string      `msgpack:"intent"`
	Step     Step        `msgpack:"step"`
	Failure  Error       `msgpack:"failure"`
	Page     string      `msgpack:"page"`
}

// RepairReply is the proposed replacement step, or, when Clears is set,
// a step that clears what covers the failed step's control (a dialog in
// the way), after which the failed step is retried as it is.
type RepairReply struct {
	Step   Step       `msgpack:"step"`
	Clears bool       `msgpack:"clears,omitempty"`
	Usage  TokenUsage `msgpack:"usage"`
}

// SubjectMatch is the matcher's endpoint (a queue group): which stored
// playbook, if any, can do a task, with which parameter values.
const SubjectMatch = "rote.matcher.match"

// MatchRequest asks whether a playbook bound to Fingerprint can do Task.
type MatchRequest struct {
	RunID       string            `msgpack:"run_id"` // the run a model call for binding is recorded in
	Fingerprint string            `msgpack:"fingerprint"`
	Task        string            `msgpack:"task"`
	Params      map[string]string `msgpack:"params,omitempty"` // values the task gives, structured
}

// MatchReply is a hit (a playbook and every parameter bound) or a miss
// with its reason. Usage is what a binding call cost, zero when none was
// made.
type MatchReply struct {
	Hit        bool              `msgpack:"hit" json:"hit"`
	Playbook   PlaybookRef       `msgpack:"playbook,omitempty" json:"playbook,omitempty"`
	Bindings   map[string]string `msgpack:"bindings,omitempty" json:"-"` // secrets included: never printed
	Score      float64           `msgpack:"score" json:"score"`
	Candidates int               `msgpack:"candidates" json:"candidates"` // playbooks under the fingerprint
	Reason     string            `msgpack:"reason,omitempty" json:"reason,omitempty"`
	Usage      TokenUsage        `msgpack:"usage" json:"usage"`
}

// SubjectBind is the planner's endpoint that binds playbook parameters
// from a task's text, for the matcher: one bounded model call tagged
// matcher.
const SubjectBind = "rote.planner.bind"

// BindRequest asks for the values of Names in Task, whose shape Intent
// templates.
// With Choices, no intent fitted the task word for word: the model is
// to say which of the shortlisted intents (numbered from 1) the task asks
// for, in other words, or none (0), and bind that intent's slots.
type BindRequest struct {
	RunID   string   `msgpack:"run_id"`
	Task    string   `msgpack:"task"`
	Intent  string   `msgpack:"intent"`
	Names   []string `msgpack:"names"`
	Choices []string `msgpack:"choices,omitempty"`
}

// BindReply is the values found, the choice made among a request's
// Choices (0: none), and what the call cost.
type BindReply struct {
	Values map[string]string `msgpack:"values"`
	Choice int               `msgpack:"choice,omitempty"`
	Usage  TokenUsage        `msgpack:"usage"`
}

// SubjectDistill is the distiller's endpoint (a queue group): compile a
// verified run into a playbook candidate.
const SubjectDistill = "rote.distiller.distill"

// DistillRequest names the run to distill and, optionally, the
// playbook's name.
type DistillRequest struct {
	RunID string `msgpack:"run_id"`
	Name  string `msgpack:"name,omitempty"`
}

// DistillReply is the candidate as YAML, with what was pruned and noted.
type DistillReply struct {
	Document []byte   `msgpack:"document"`
	Pruned   []string `msgpack:"pruned,omitempty"` // "step: reason"
	Notes    []string `msgpack:"notes,omitempty"`
}
