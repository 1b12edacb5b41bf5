package compare

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Summary is what the rows add up to.
type Summary struct {
	Pages int `json:"pages"`
	// MedianRatio is the median over pages of @playwright/mcp's tokens
	// over Rote's; TotalRatio the ratio of their sums.
	MedianRatio float64 `json:"median_ratio"`
	TotalRatio  float64 `json:"total_ratio"`
	RoteTokens  int     `json:"rote_tokens"`
	PWTokens    int     `json:"playwright_tokens"`
	// MissingInRote counts the pages where Rote shows a control less.
	MissingInRote int `json:"pages_missing_in_rote"`
	// MedianTimeRatio is the median over pages of Rote's navigate plus
	// observe over @playwright/mcp's navigate plus snapshot (below 1:
	// Rote is faster); SlowestTimeRatio the largest, on SlowestPage.
	MedianTimeRatio  float64 `json:"median_time_ratio"`
	SlowestTimeRatio float64 `json:"slowest_time_ratio"`
	SlowestPage      string  `json:"slowest_page"`
}

// TimeRatio is Rote's navigate plus observe over @playwright/mcp's
// navigate plus snapshot.
func (r Row) TimeRatio() float64 {
	pw := r.PlaywrightNavigateMS + r.PlaywrightSnapshotMS
	if pw == 0 {
		return 0
	}
	return (r.RoteNavigateMS + r.RoteObserveMS) / pw
}

// Summarize adds the rows up.
func Summarize(rows []Row) Summary {
	s := Summary{Pages: len(rows)}
	var ratios, times []float64
	for _, r := range rows {
		ratios = append(ratios, r.Ratio())
		times = append(times, r.TimeRatio())
		if t := r.TimeRatio(); t > s.SlowestTimeRatio {
			s.SlowestTimeRatio, s.SlowestPage = t, r.Site+" "+r.Page
		}
		s.RoteTokens += r.RoteTokens
		s.PWTokens += r.PlaywrightTokens
		if len(r.MissingInRote) > 0 {
			s.MissingInRote++
		}
	}
	s.MedianRatio, s.MedianTimeRatio = median(ratios), median(times)
	if s.RoteTokens > 0 {
		s.TotalRatio = float64(s.PWTokens) / float64(s.RoteTokens)
	}
	return s
}

// WriteMarkdown writes the comparison as a table, with the command that
// made it.
func WriteMarkdown(w io.Writer, command string, rows []Row, reps int) error {
	s := Summarize(rows)
	var b strings.Builder
	fmt.Fprintf(&b, "# Perception: Rote and @playwright/mcp on the same pages\n\nProduced by `%s` (%d repetitions a page; times are medians).\n\n", command, reps)
	fmt.Fprintf(&b, "On %d pages Rote's render is %.1fx smaller than @playwright/mcp's snapshot on the median page and %.1fx in total (%d against %d o200k tokens). Pages where Rote shows a control fewer than the snapshot: %d. Rote's navigate plus observe takes %.2fx @playwright/mcp's navigate plus snapshot on the median page, %.2fx on the slowest (%s).\n\n",
		s.Pages, s.MedianRatio, s.TotalRatio, s.RoteTokens, s.PWTokens, s.MissingInRote, s.MedianTimeRatio, s.SlowestTimeRatio, s.SlowestPage)
	b.WriteString("| Site | Page | DOM elements | Rote nodes (actionable) | Rote tokens | @playwright/mcp tokens | Smaller | Rote navigate + observe ms | @playwright/mcp navigate + snapshot ms | Controls only in the snapshot | Controls only in Rote |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %d (%d) | %d | %d | %.1fx | %.0f + %.0f | %.0f + %.0f | %s | %s |\n",
			r.Site, r.Page, r.DOMElements, r.Nodes, r.Actionable, r.RoteTokens, r.PlaywrightTokens, r.Ratio(),
			r.RoteNavigateMS, r.RoteObserveMS, r.PlaywrightNavigateMS, r.PlaywrightSnapshotMS, names(r.MissingInRote), names(r.MissingInPlaywright))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// names lists a few names and how many more.
func names(ns []string) string {
	if len(ns) == 0 {
		return "none"
	}
	shown := slices.Clone(ns)
	more := ""
	if len(shown) > 4 {
		more = fmt.Sprintf(" and %d more", len(shown)-4)
		shown = shown[:4]
	}
	for i, n := range shown {
		if len([]rune(n)) > 40 {
			n = string([]rune(n)[:40]) + "…"
		}
		shown[i] = fmt.Sprintf("%q", strings.ReplaceAll(n, "|", "/"))
	}
	return strings.Join(shown, ", ") + more
}
