package suite

import (
	"errors"
	"strings"

	"github.com/rote-agent/rote/bench/scripted"
)

// cues are the words that mark a message's category, checked in this
// order: spam first, since prize mail borrows every other category's
// words.
var cues = []struct {
	category string
	words    []string
}{
	{"Spam", []string{"prize", "winner", "reward", "gift", "claim", "lucky"}},
	{"Billing", []string{"invoice", "refund", "charge", "payment", "statement", "overdue", "billed"}},
	{"Account", []string{"locked", "password", "log in", "login", "sign in", "access", "account"}},
	{"Technical", []string{"crash", "error", "bug", "fails", "broken", "export", "upload"}},
}

// classify reads the message a page shows (its heading and its text) and
// returns the category its words call for.
func classify(p Page) (string, bool) {
	var b strings.Builder
	for _, n := range p.Nodes {
		if (n.Role == "heading" || n.Role == "text" || n.Role == "paragraph") && !strings.HasPrefix(n.Name, "From:") {
			b.WriteString(n.Name)
			b.WriteByte('\n')
		}
	}
	return classifyText(b.String())
}

// classifyText returns the category whose cues text holds most.
func classifyText(text string) (string, bool) {
	text = strings.ToLower(text)
	best, score := "", 0
	for _, c := range cues {
		n := 0
		for _, w := range c.words {
			n += strings.Count(text, w)
		}
		if n > score {
			best, score = c.category, n
		}
	}
	return best, score > 0
}

// judge answers a judgment request: the category the page's message calls
// for, if it is among the options.
func judge(r *reading) (scripted.Answer, error) {
	if !r.hasPage {
		return scripted.Answer{}, errors.New("the judgment request shows no page")
	}
	c, ok := classify(r.page)
	if len(r.page.Nodes) == 0 {
		c, ok = classifyText(r.pageText) // the page as plain text
	}
	if !ok {
		return scripted.Answer{}, errors.New("the page's text fits no category")
	}
	return scripted.Answer{Content: c}, nil // the caller checks it is one of the options
}
