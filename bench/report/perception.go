package report

import (
	"fmt"
	"slices"
	"strings"
)

// Perception is perception measured on one large page over repetitions,
// beside the figures the seed design reports for the same page.
type Perception struct {
	Page        string `json:"page"`
	Reps        int    `json:"reps"`
	DOMElements []int  `json:"dom_elements"`
	Nodes       []int  `json:"distilled_nodes"`
	Chars       []int  `json:"full_render_chars"`
	Tokens      []int  `json:"full_render_tokens"`
	// DiffChars are the diffs after small actions (typing in the search
	// box, ticking a row).
	DiffChars []int `json:"diff_chars"`
	// IDsVarying counts the element ids some repetition's render had and
	// another's lacked.
	IDsVarying int `json:"ids_varying"`
}

// median of xs (the lower middle for an even count); 0 for none.
func median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	return s[(len(s)-1)/2]
}

func spread(xs []int) string {
	if len(xs) == 0 {
		return "-"
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	if lo == hi {
		return fmt.Sprintf("%d", lo)
	}
	return fmt.Sprintf("%d (%d-%d)", median(xs), lo, hi)
}

// markdown renders the perception table.
func (p *Perception) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Perception on the WordPress posts list\n\n%s, 120 posts, 100 per page, signed in; %d repetitions, each on a freshly restored site. Medians (range).\n\n", p.Page, p.Reps)
	b.WriteString("| Measure | Rote | Seed design's figure |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| DOM elements | %s | 6,784 |\n", spread(p.DOMElements))
	fmt.Fprintf(&b, "| Distilled nodes | %s | 797 |\n", spread(p.Nodes))
	fmt.Fprintf(&b, "| Full render, characters | %s | - |\n", spread(p.Chars))
	fmt.Fprintf(&b, "| Full render, tokens (o200k) | %s | ~22k |\n", spread(p.Tokens))
	fmt.Fprintf(&b, "| Diff after a small action, characters (median of %d) | %d | 24 |\n", len(p.DiffChars), median(p.DiffChars))
	fmt.Fprintf(&b, "| Element ids that varied across repetitions | %d | 0 |\n", p.IDsVarying)
	return b.String()
}
