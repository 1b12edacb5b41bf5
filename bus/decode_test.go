package bus

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
)

// stored is a message as a reader gets it from the stream.
type stored struct {
	jetstream.Msg
	subject string
	header  nats.Header
	data    []byte
}

func (m stored) Subject() string      { return m.subject }
func (m stored) Headers() nats.Header { return m.header }
func (m stored) Data() []byte         { return m.data }
func (m stored) Metadata() (*jetstream.MsgMetadata, error) {
	return nil, errors.New("no metadata")
}

// TestAnEventOffItsSubjectIsRefused: the subject a role's signature
// covers says which kind of event it wrote and for which run; an event
// stored under another kind's subject (a run.finished where perception
// writes) or another run's is refused, whoever signed it.
func TestAnEventOffItsSubjectIsRefused(t *testing.T) {
	ev := &schema.RunStarted{Meta: schema.Meta{ID: "s", Time: time.Now()}, RunSpec: schema.RunSpec{RunID: "R", Mode: schema.ModeReplay, Task: schema.TaskSpec{Text: "t"}}}
	data, err := schema.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	perception := newSigner("perception", []byte(RolePassword("pw", "perception")))
	for subject, want := range map[string]string{
		schema.RunSubject("R", schema.KindStarted):  "",
		schema.RunSubject("R", schema.KindObserved): "stored on rote.runs.R.observed",
		schema.RunSubject("X", schema.KindStarted):  "stored on rote.runs.X.started",
	} {
		h := nats.Header{}
		h.Set(HeaderEventType, ev.EventType())
		h.Set(HeaderSignature, perception.sign(subject, ev.EventType(), data))
		_, err := Decode(stored{subject: subject, header: h, data: data})
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", subject, err, want)
		}
	}
}
