package portal

import (
	"fmt"
	"html/template"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The release board is the page of gestures a person makes beyond
// clicking and typing: cards dragged between columns (HTML5 drag and
// drop), a menu that opens on hover from an unnamed trigger, a keyboard
// shortcut shown as an instruction, inputs set by picker (a date, a time,
// a range, a colour), a toast after each move, and a help desk in a frame
// from the portal's other loopback origin (127.0.0.1 and localhost are
// different sites to a browser, so the frame runs out of process).
//
// GET /board shows it. The page's script posts a move to POST
// /board/move (card, column) and the shortcut Alt+Shift+A to POST
// /board/archive (the Done column's cards are archived); the hover menu's
// "Export board" posts POST /board/export; the schedule form posts POST
// /board/schedule. GET /board/help is the frame's page and POST
// /board/help records its question; both are public, since the frame's
// origin has no session cookie.

// Board is the release board's state.
type Board struct {
	// Cards are the cards with the column each is in, in page order.
	Cards []Card `json:"cards"`
	// Moves are the moves made, as "card: from -> to".
	Moves []string `json:"moves"`
	// Archived are the titles of the cards archived by the shortcut.
	Archived []string `json:"archived"`
	// Exports counts exports from the hover menu.
	Exports int `json:"exports"`
	// Schedule is the release schedule saved last.
	Schedule Schedule `json:"schedule"`
	// Questions are the questions sent from the help desk frame.
	Questions []string `json:"questions"`
}

// Card is one card of the board.
type Card struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Column string `json:"column"` // todo, doing or done
}

// Schedule is what the schedule form saved.
type Schedule struct {
	Date     string `json:"date"`     // YYYY-MM-DD
	Time     string `json:"time"`     // HH:MM
	Priority int    `json:"priority"` // 1 to 5
	Colour   string `json:"colour"`   // #rrggbb
}

// boardColumns are the board's columns, in page order.
var boardColumns = []struct{ ID, Title string }{{"todo", "To do"}, {"doing", "Doing"}, {"done", "Done"}}

func seedBoard() Board {
	return Board{
		Cards: []Card{
			{"c1", "Write release notes", "todo"}, {"c2", "Update the changelog", "todo"}, {"c3", "Tag the release", "todo"},
			{"c4", "Run the smoke tests", "doing"}, {"c5", "Freeze the branch", "done"},
		},
		Moves: []string{}, Archived: []string{}, Questions: []string{},
		Schedule: Schedule{Priority: 3, Colour: "#1f6feb"},
	}
}

func (b Board) clone() Board {
	c := b
	c.Cards, c.Moves, c.Archived, c.Questions = slices.Clone(b.Cards), slices.Clone(b.Moves), slices.Clone(b.Archived), slices.Clone(b.Questions)
	return c
}

// boardView is what the board page shows.
type boardView struct {
	Columns []boardColumn
	Help    string // the help desk frame's address, on the other origin
}

type boardColumn struct {
	ID, Title string
	Cards     []Card
}

// board serves GET /board; with ?frame=none, without the help desk
// frame (the same page, to measure what the frame costs).
func (p *Portal) board(w http.ResponseWriter, r *http.Request, s *session) {
	v := boardView{}
	if r.URL.Query().Get("frame") != "none" {
		v.Help = otherOrigin(r) + "/board/help"
	}
	for _, col := range boardColumns {
		c := boardColumn{ID: col.ID, Title: col.Title}
		for _, card := range p.st.Board.Cards {
			if card.Column == col.ID {
				c.Cards = append(c.Cards, card)
			}
		}
		v.Columns = append(v.Columns, c)
	}
	p.render(w, s, http.StatusOK, "board", view{Title: "Release board", Section: "/board", Data: v})
}

// otherOrigin is the portal's other loopback origin: localhost for a
// request to 127.0.0.1 and the other way round, on the same port.
func otherOrigin(r *http.Request) string {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, "80"
	}
	other := "localhost"
	if host == "localhost" {
		other = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(other, port)
}

// boardMove serves POST /board/move: card moves to column. It answers
// 204, or 400 for an unknown card or column.
func (p *Portal) boardMove(w http.ResponseWriter, r *http.Request, _ *session) {
	id, to := r.PostFormValue("card"), r.PostFormValue("column")
	i := slices.IndexFunc(p.st.Board.Cards, func(c Card) bool { return c.ID == id })
	known := slices.ContainsFunc(boardColumns, func(c struct{ ID, Title string }) bool { return c.ID == to })
	if i < 0 || !known {
		http.Error(w, "no such card or column", http.StatusBadRequest)
		return
	}
	card := &p.st.Board.Cards[i]
	if card.Column != to {
		p.st.Board.Moves = append(p.st.Board.Moves, fmt.Sprintf("%s: %s -> %s", card.Title, card.Column, to))
		card.Column = to
	}
	w.WriteHeader(http.StatusNoContent)
}

// boardArchive serves POST /board/archive: the Done column's cards are
// archived (taken off the board). It answers with how many.
func (p *Portal) boardArchive(w http.ResponseWriter, _ *http.Request, _ *session) {
	kept := p.st.Board.Cards[:0:0]
	n := 0
	for _, c := range p.st.Board.Cards {
		if c.Column == "done" {
			p.st.Board.Archived = append(p.st.Board.Archived, c.Title)
			n++
			continue
		}
		kept = append(kept, c)
	}
	p.st.Board.Cards = kept
	fmt.Fprint(w, n)
}

// boardExport serves POST /board/export.
func (p *Portal) boardExport(w http.ResponseWriter, r *http.Request, s *session) {
	p.st.Board.Exports++
	s.flash = "Board exported"
	http.Redirect(w, r, "/board", http.StatusSeeOther)
}

var (
	datePattern   = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	timePattern   = regexp.MustCompile(`^\d{2}:\d{2}$`)
	colourPattern = regexp.MustCompile(`^#[0-9a-f]{6}$`)
)

// boardSchedule serves POST /board/schedule.
func (p *Portal) boardSchedule(w http.ResponseWriter, r *http.Request, s *session) {
	sc := Schedule{Date: r.PostFormValue("date"), Time: r.PostFormValue("time"), Colour: strings.ToLower(r.PostFormValue("colour"))}
	prio, err := strconv.Atoi(r.PostFormValue("priority"))
	if !datePattern.MatchString(sc.Date) || !timePattern.MatchString(sc.Time) || !colourPattern.MatchString(sc.Colour) || err != nil || prio < 1 || prio > 5 {
		http.Error(w, "a date, a time, a priority from 1 to 5 and a colour are needed", http.StatusBadRequest)
		return
	}
	sc.Priority = prio
	p.st.Board.Schedule = sc
	s.flash = fmt.Sprintf("Release scheduled for %s at %s, priority %d", sc.Date, sc.Time, sc.Priority)
	http.Redirect(w, r, "/board", http.StatusSeeOther)
}

// helpPage is the help desk frame: a page of its own, not the portal's
// layout.
var helpPage = template.Must(template.New("help").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Help desk</title></head>
<body><main>
<h1>Help desk</h1>
{{if .}}<p role="status">Question received: {{.}}</p>{{end}}
<form method="post" action="/board/help">
<label for="question">Question</label> <input id="question" name="question" required>
<button type="submit">Send question</button>
</form>
</main></body></html>`))

// boardHelp serves GET and POST /board/help. A POST records the question.
func (p *Portal) boardHelp(w http.ResponseWriter, r *http.Request) {
	q := ""
	if r.Method == http.MethodPost {
		if q = strings.TrimSpace(r.PostFormValue("question")); q == "" {
			http.Error(w, "a question is needed", http.StatusBadRequest)
			return
		}
		p.st.Board.Questions = append(p.st.Board.Questions, q)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	helpPage.Execute(w, q)
}
