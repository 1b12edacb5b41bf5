package recorder

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/rote-agent/rote/schema"
	"github.com/vmihailenco/msgpack/v5"
)

var update = flag.Bool("update", false, "rewrite the events section of golden transcripts")

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// TestSessionTranscripts replays each testdata/sessions/*.txtar through a
// Session. The session section has one line per frame, "> " for client
// to server and "< " for server to client, 10 ms apart; the events
// section holds the records the session must emit, one JSON line each.
func TestSessionTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/sessions/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := replayTranscript(t, section(t, ar, "session"))
			if *update {
				setSection(ar, "events", got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := section(t, ar, "events"); !bytes.Equal(got, want) {
				t.Fatalf("events differ (go test -run TestSessionTranscripts -update to accept):\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

func replayTranscript(t *testing.T, session []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	s := NewSession("test", schema.Redactor{Key: []byte("test-key"), Values: []string{"hunter22"}}, func(ev schema.Event) {
		if err := validateDraft(ev); err != nil {
			t.Errorf("emitted an event that will not validate: %v", err)
		}
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString(ev.EventType() + " " + string(b) + "\n")
	})
	at := t0
	for _, line := range strings.Split(strings.TrimSuffix(string(session), "\n"), "\n") {
		at = at.Add(10 * time.Millisecond)
		switch {
		case strings.HasPrefix(line, "> "):
			s.Observe(schema.ToServer, []byte(line[2:]+"\n"), at)
		case strings.HasPrefix(line, "< "):
			s.Observe(schema.ToClient, []byte(line[2:]+"\n"), at)
		default:
			t.Fatalf("transcript line without direction: %q", line)
		}
	}
	s.Close(at.Add(10 * time.Millisecond))
	return out.Bytes()
}

// validateDraft numbers a copy of a draft as the writer would and
// validates it.
func validateDraft(ev schema.Event) error {
	data, err := msgpack.Marshal(ev)
	if err != nil {
		return err
	}
	cp, _ := schema.NewEvent(ev.EventType())
	if err := msgpack.Unmarshal(data, cp); err != nil {
		return err
	}
	w := &writer{runID: "RUN"}
	w.number(cp)
	return cp.Validate()
}

func section(t *testing.T, ar *txtar.Archive, name string) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	if name == "events" && *update {
		return nil
	}
	t.Fatalf("no %q section", name)
	return nil
}

func setSection(ar *txtar.Archive, name string, data []byte) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}
