package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareCommand runs `rote compare` on the fixture portal against
// @playwright/mcp: every page is measured on both sides, Rote's render is
// at least twice smaller on the median page, no control the snapshot
// shows is missing from Rote's, and the release board's cross-site frame
// is read (its question field among Rote's controls).
func TestCompareCommand(t *testing.T) {
	long(t, "comparing perception on 17 pages through @playwright/mcp")
	t.Parallel()
	out := t.TempDir()
	cli := playwrightCLI(t)
	code, text := rote(t, t.TempDir(), "compare", "--reps", "1", "--out", out, "--playwright-mcp", cli)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, text)
	}
	data, err := os.ReadFile(filepath.Join(out, "perception.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Summary struct {
			Pages         int     `json:"pages"`
			MedianRatio   float64 `json:"median_ratio"`
			MissingInRote int     `json:"pages_missing_in_rote"`
			TimeRatio     float64 `json:"median_time_ratio"`
		} `json:"summary"`
		Rows []struct {
			Page                string
			RoteTokens          int
			PlaywrightTokens    int
			MissingInRote       []string
			MissingInPlaywright []string
		} `json:"rows"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Summary.Pages != 17 || got.Summary.MedianRatio < 2 || got.Summary.MissingInRote != 0 || got.Summary.TimeRatio <= 0 {
		t.Fatalf("summary %+v\n%s", got.Summary, text)
	}
	tokens := map[string]int{}
	for _, r := range got.Rows {
		if r.RoteTokens == 0 || r.PlaywrightTokens == 0 {
			t.Errorf("%s was not measured on both sides: %+v", r.Page, r)
		}
		tokens[r.Page] = r.RoteTokens
	}
	// The frame's help desk (a heading, a field, a button) is read: the
	// board with it renders longer than the board without it.
	if tokens["board, cross-site frame"] <= tokens["board, no frame"] {
		t.Errorf("the board with its frame renders %d tokens, without it %d", tokens["board, cross-site frame"], tokens["board, no frame"])
	}
	md, err := os.ReadFile(filepath.Join(out, "perception.md"))
	if err != nil || !strings.Contains(string(md), "| portal | board, cross-site frame |") {
		t.Fatalf("perception.md: %v\n%s", err, md)
	}
}
