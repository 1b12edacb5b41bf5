package schema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/runs/*.txtar")

// foldView is what the golden files hold of a fold: every derived value
// the audit, the distiller, the benchmark and `rote runs` read.
type foldView struct {
	RunID                    string        `json:"run_id"`
	Events                   int           `json:"events"`
	Manifest                 Manifest      `json:"manifest"`
	Usage                    []SourceUsage `json:"usage"`
	Offline                  bool          `json:"offline"`
	Wall                     time.Duration `json:"wall"`
	ModelTime                time.Duration `json:"model_time"`
	Verified                 bool          `json:"verified"`
	Done                     string        `json:"done"`
	Answer                   string        `json:"answer"`
	Steps                    int           `json:"steps"`
	Observations             int           `json:"observations"`
	PlannerObservationTokens int64         `json:"planner_observation_tokens"`
	LastResult               string        `json:"last_result,omitempty"`
	BlobRefs                 []string      `json:"blob_refs"`
	Audit                    *Audit        `json:"audit"`
}

// TestFoldGolden folds each recorded run in testdata/runs (an agent run,
// a replay that fell back and its continuation, a recorded MCP session,
// a run that never finished, a forged manifest) and compares what it
// derives with the golden section; -update rewrites it.
func TestFoldGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/runs/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden runs (%v)", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var events []Event
			var children []string
			golden := -1
			for i, f := range ar.Files {
				switch f.Name {
				case "events.jsonl":
					events = decodeJSONL(t, f.Data)
				case "children":
					children = strings.Fields(string(f.Data))
				case "fold.json":
					golden = i
				}
			}
			if len(events) == 0 {
				t.Fatal("no events.jsonl")
			}
			f := Fold(events)
			v := foldView{RunID: f.RunID, Events: f.Events, Manifest: f.Manifest(), Usage: f.Usage(), Offline: f.Offline(), Wall: f.Wall(),
				ModelTime: f.ModelTime(), Verified: f.Verified(), Done: f.Done(), Answer: f.Answer(), Steps: f.Steps(), Observations: len(f.Observations),
				PlannerObservationTokens: f.PlannerObservationTokens, BlobRefs: f.BlobRefs(), Audit: AuditRun(f, children)}
			if last := f.LastResult(); last != nil {
				v.LastResult = last.ResultDigest
			}
			got, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			if *update {
				if golden < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "fold.json"})
					golden = len(ar.Files) - 1
				}
				ar.Files[golden].Data = got
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if golden < 0 {
				t.Fatal("no fold.json section: run with -update")
			}
			if want := ar.Files[golden].Data; !bytes.Equal(got, want) {
				t.Fatalf("the fold differs from its golden section:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// decodeJSONL reads events as `rote runs export` writes them: one
// {"type", "subject", "event"} object a line.
func decodeJSONL(t *testing.T, data []byte) []Event {
	t.Helper()
	var events []Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var line struct {
			Type  string          `json:"type"`
			Event json.RawMessage `json:"event"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		ev, err := NewEvent(line.Type)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(line.Event, ev); err != nil {
			t.Fatalf("%s: %v", line.Type, err)
		}
		if err := ev.Validate(); err != nil {
			t.Fatalf("%s does not validate: %v", line.Type, err)
		}
		events = append(events, ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return events
}
