package portal

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestBoardRecordsWhatItsGesturesSend walks the board's endpoints as its
// script and forms use them: a move, the archive shortcut, an export, a
// schedule, and a question from the help desk frame; bad input is
// refused and records nothing.
func TestBoardRecordsWhatItsGesturesSend(t *testing.T) {
	b := loggedIn(t, "")
	pg := b.get("/board")
	pg.mustContain(t, "<h1>Release board</h1>", `draggable="true" data-card="c1">Write release notes`, `aria-label="Done"`,
		`type="date"`, `type="range"`, `type="color"`, `aria-live="polite"`, "Alt+Shift+A", `/board/help"`)
	if !strings.Contains(pg.body, `src="http://localhost:`) {
		t.Errorf("the help desk frame is not on the other loopback origin:\n%s", pg.body)
	}
	b.get("/board?frame=none").mustNotContain(t, "<iframe")
	if got := b.post("/board/move", url.Values{"card": {"c1"}, "column": {"done"}}); got.status != 204 {
		t.Fatalf("move: %d %s", got.status, got.body)
	}
	for _, bad := range []url.Values{{"card": {"c9"}, "column": {"done"}}, {"card": {"c1"}, "column": {"trash"}}} {
		if got := b.post("/board/move", bad); got.status != 400 {
			t.Errorf("move %v: %d, want 400", bad, got.status)
		}
	}
	if got := b.post("/board/archive", nil); got.body != "2" {
		t.Errorf("archive answered %q, want 2 (Freeze the branch, Write release notes)", got.body)
	}
	b.post("/board/export", nil).mustContain(t, "Board exported")
	b.post("/board/schedule", url.Values{"date": {"2026-10-26"}, "time": {"14:30"}, "priority": {"5"}, "colour": {"#FF8800"}}).
		mustContain(t, "Release scheduled for 2026-10-26 at 14:30, priority 5")
	if got := b.post("/board/schedule", url.Values{"date": {"26/10/2026"}, "time": {"14:30"}, "priority": {"9"}, "colour": {"red"}}); got.status != 400 {
		t.Errorf("a bad schedule was taken: %d", got.status)
	}
	b.another().post("/board/help", url.Values{"question": {"Where is the changelog?"}}).mustContain(t, "Question received: Where is the changelog?")

	st := b.p.State().Board
	if !slices.Equal(st.Moves, []string{"Write release notes: todo -> done"}) || !slices.Equal(st.Archived, []string{"Write release notes", "Freeze the branch"}) ||
		st.Exports != 1 || st.Schedule != (Schedule{"2026-10-26", "14:30", 5, "#ff8800"}) || !slices.Equal(st.Questions, []string{"Where is the changelog?"}) {
		t.Errorf("board state %+v", st)
	}
	if slices.ContainsFunc(st.Cards, func(c Card) bool { return c.Column == "done" }) {
		t.Errorf("archived cards are still on the board: %+v", st.Cards)
	}
	b.p.Reset()
	if got := b.p.State().Board; len(got.Moves) != 0 || len(got.Cards) != 5 {
		t.Errorf("reset left the board %+v", got)
	}
}
