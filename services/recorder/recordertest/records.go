package recordertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Environment variables of the record tools.
const (
	// EnvState is a JSON file holding the records, shared by every
	// session that names it; without it records live in the process.
	EnvState = "ROTE_FIXTURE_STATE"
	// EnvDrift changes what create_record returns: "empty" lists no
	// created record, "twice" lists two.
	EnvDrift = "ROTE_FIXTURE_DRIFT"
)

// Records is the record tools' state, as EnvState holds it.
type Records struct {
	Next    int               `json:"next"`
	Records map[string]Record `json:"records"`
}

// Record is one record.
type Record struct {
	Name  string `json:"name"`
	Label string `json:"label,omitempty"`
}

// ReadRecords reads the state file at path.
func ReadRecords(path string) (Records, error) {
	r := Records{Next: 17, Records: map[string]Record{}}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal(b, &r)
}

// addRecordTools adds two tools whose second call uses what the first
// returned, as real APIs do:
//
//	create_record {name}      creates r-<n>; the structured result lists it: {"created": [{"id", "name"}]}
//	label_record  {id, label} labels the record with that id; an unknown id is a tool error
func addRecordTools(s *mcp.Server) {
	var mu sync.Mutex
	path := os.Getenv(EnvState)
	mem := Records{Next: 17, Records: map[string]Record{}}
	update := func(f func(*Records) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
		mu.Lock()
		defer mu.Unlock()
		state := mem
		if path != "" {
			var err error
			if state, err = ReadRecords(path); err != nil {
				return nil, err
			}
		}
		res, err := f(&state)
		if err != nil {
			return nil, err
		}
		if path != "" {
			b, _ := json.Marshal(state)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				return nil, err
			}
		}
		mem = state
		return res, nil
	}
	type createArgs struct {
		Name string `json:"name"`
	}
	type labelArgs struct {
		ID    string `json:"id"`
		Label string `json:"label"`
	}
	s.AddTool(&mcp.Tool{Name: "create_record", Description: "create a record", InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a createArgs
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			return update(func(st *Records) (*mcp.CallToolResult, error) {
				created := []map[string]string{}
				n := 1
				switch os.Getenv(EnvDrift) {
				case "empty":
					n = 0
				case "twice":
					n = 2
				}
				for range n {
					id := fmt.Sprintf("r-%d", st.Next)
					st.Next++
					st.Records[id] = Record{Name: a.Name}
					created = append(created, map[string]string{"id": id, "name": a.Name})
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("created %d record(s)", n)}},
					StructuredContent: map[string]any{"created": created}}, nil
			})
		})
	s.AddTool(&mcp.Tool{Name: "label_record", Description: "label a record", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"label":{"type":"string"}},"required":["id","label"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a labelArgs
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			return update(func(st *Records) (*mcp.CallToolResult, error) {
				r, ok := st.Records[a.ID]
				if !ok {
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no record " + a.ID}}}, nil
				}
				r.Label = a.Label
				st.Records[a.ID] = r
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("labelled %s %s: %s", a.ID, r.Name, a.Label)}},
					StructuredContent: map[string]any{"id": a.ID, "name": r.Name, "label": a.Label}}, nil
			})
		})
}
