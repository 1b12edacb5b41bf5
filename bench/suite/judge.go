package suite

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rote-agent/rote/bench/scripted"
)

// cue is a category and the words that call for it.
type cue struct {
	category string
	words    []string
}

// cues are the words that mark a message's category, checked in this
// order: spam first, since prize mail borrows every other category's
// words.
var cues = []cue{
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
// for, if it is among the options; or, among records (options that are no
// category), the one record the page's text asks for.
func judge(r *reading) (scripted.Answer, error) {
	if !r.hasPage {
		return scripted.Answer{}, errors.New("the judgment request shows no page")
	}
	if !slices.ContainsFunc(cues, func(c cue) bool { return slices.Contains(r.options, c.category) }) {
		return requested(r)
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

// requested returns the one option a line of the page's text names (a
// note: "The auditor asks for Operations report October 2026"), as a
// reader would take the page's word for which record it means.
func requested(r *reading) (scripted.Answer, error) {
	var named []string
	for _, o := range r.options {
		for _, n := range r.page.Nodes {
			if (n.Role == "text" || n.Role == "paragraph") && strings.Contains(n.Name, o) && !slices.Contains(named, o) {
				named = append(named, o)
			}
		}
	}
	if len(named) != 1 {
		return scripted.Answer{}, fmt.Errorf("the page's text names %d of the %d records, not one", len(named), len(r.options))
	}
	return scripted.Answer{Content: named[0]}, nil
}
