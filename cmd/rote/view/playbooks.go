package view

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// PlaybookRow is one playbook as `rote playbooks list` prints it.
type PlaybookRow struct {
	Name        string    `json:"name"`
	Fingerprint string    `json:"fingerprint"`
	Version     uint64    `json:"version"`
	Origin      string    `json:"origin"`
	Intent      string    `json:"intent"`
	Steps       int       `json:"steps"`
	Updated     time.Time `json:"updated"`
}

// PlaybookRows are the rows of list; a stored playbook that does not
// decode is an error naming it.
func PlaybookRows(list []bus.PlaybookEntry) ([]PlaybookRow, error) {
	rows := []PlaybookRow{}
	for _, e := range list {
		p, err := e.Decode()
		if err != nil {
			return nil, fmt.Errorf("stored playbook %s: %w", e.Name, err)
		}
		rows = append(rows, PlaybookRow{e.Name, e.Fingerprint, e.Stored.Version, e.Stored.Origin, p.Intent, len(p.Steps), e.Stored.Time})
	}
	return rows, nil
}

// PlaybookTable prints rows as a table, or says there are none.
func PlaybookTable(w io.Writer, rows []PlaybookRow) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no playbooks")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFINGERPRINT\tVERSION\tORIGIN\tSTEPS\tUPDATED\tINTENT")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%s\t%s\n", r.Name, schema.ShortFingerprint(r.Fingerprint), r.Version, r.Origin, r.Steps, r.Updated.Format(time.RFC3339), Cell(r.Intent, 48))
	}
	return tw.Flush()
}

// Playbook prints stored playbook p (entry e) in summary: its intent,
// parameters, steps in order and verify gate.
func Playbook(w io.Writer, e *bus.PlaybookEntry, p *schema.Playbook) {
	fmt.Fprintf(w, "%s version %d (%s, %s)\nintent: %s\nfingerprint: %s\n", p.Name, e.Stored.Version, e.Stored.Origin,
		e.Stored.Time.Format(time.RFC3339), p.Intent, e.Fingerprint)
	for _, n := range slices.Sorted(maps.Keys(p.Params)) {
		decl := p.Params[n]
		req := ""
		if decl.Required {
			req = ", required"
		}
		fmt.Fprintf(w, "param %s: %s%s\n", n, decl.Type, req)
	}
	order, _ := p.Order()
	for i, s := range order {
		what := s.Tool
		if s.Target != nil {
			what += fmt.Sprintf(" %s %q", s.Target.Role, s.Target.Name)
		}
		if s.Kind != schema.StepDeterministic {
			what = string(s.Kind) + ": " + Cell(s.Prompt, 60)
		}
		fmt.Fprintf(w, "%3d. %s  %s\n", i+1, s.ID, what)
	}
	for _, v := range p.Verify {
		fmt.Fprintf(w, "verify %s\n", v)
	}
}

// History prints a playbook's kept versions.
func History(w io.Writer, hist []bus.PlaybookEntry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tORIGIN\tTIME\tNOTE")
	for _, h := range hist {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", h.Stored.Version, h.Stored.Origin, h.Stored.Time.Format(time.RFC3339), h.Stored.Note)
	}
	return tw.Flush()
}
