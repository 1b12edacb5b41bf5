package view

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// SiteMemory prints a site's memory for people: each routine and fact
// with the runs that support it, whether it is suspect, and the brief.
func SiteMemory(w io.Writer, site string, m *bus.SiteMemory) {
	fmt.Fprintf(w, "site %s (fingerprint %s)\n", site, schema.ShortFingerprint(m.Fingerprint))
	if m.Empty() {
		fmt.Fprintln(w, "  no memory yet: it is learned when a playbook of the site is promoted")
		return
	}
	fmt.Fprintf(w, "routines: %d\n", len(m.Routines))
	for _, r := range m.Routines {
		p, err := r.Fragment()
		if err != nil {
			fmt.Fprintf(w, "  %s  UNREADABLE: %v\n", r.Name, err)
			continue
		}
		params := slices.Sorted(maps.Keys(p.Params))
		if r.Said == "" {
			fmt.Fprintf(w, "  %s(%s)  the way %s goes to its work: the model may run it by name\n", r.Name, strings.Join(params, ", "), strings.Join(r.Classes, ", "))
		} else {
			fmt.Fprintf(w, "  %s(%s)  shared by %s, run by Rote where a task says %q\n", r.Name, strings.Join(params, ", "), strings.Join(r.Classes, ", "), r.Said)
		}
		fmt.Fprintf(w, "    does  %s\n", p.Intent)
		fmt.Fprintf(w, "    pre   %s\n", expectsText(r.Pre))
		fmt.Fprintf(w, "    post  %s\n", expectsText(p.Verify))
		fmt.Fprintf(w, "    runs  %s\n", strings.Join(r.Evidence, ", "))
		if r.Suspect != nil {
			fmt.Fprintf(w, "    SUSPECT since run %s: %s (not run again until relearned)\n", r.Suspect.RunID, r.Suspect.Why)
		}
	}
	fmt.Fprintf(w, "facts: %d\n", len(m.Facts))
	for _, f := range m.Facts {
		fmt.Fprintf(w, "  %s  (%s)\n    runs  %s\n", f.Text(), f.Name, strings.Join(f.Evidence, ", "))
		if f.Suspect != nil {
			fmt.Fprintf(w, "    SUSPECT since run %s: %s (out of the brief until newer runs show it again)\n", f.Suspect.RunID, f.Suspect.Why)
		}
	}
	if m.Brief != nil {
		fmt.Fprintf(w, "brief (%d bytes, what the agent reads now: trusted items only):\n", len(m.Brief.Text))
		for line := range strings.SplitSeq(m.Brief.Text, "\n") {
			fmt.Fprintln(w, "  "+line)
		}
	}
}

func expectsText(es []schema.Expect) string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.String()
	}
	return strings.Join(out, "; ")
}

// routineJSON is a routine as memory show --json prints it: its stored
// fields and what its fragment says (its parameters, its steps, its
// postcondition), which the stored document holds as YAML.
type routineJSON struct {
	schema.Routine
	Params []string        `json:"params"`
	Does   string          `json:"does"`
	Post   []schema.Expect `json:"post"`
	Error  string          `json:"error,omitempty"` // why its fragment does not read
}

// SiteMemoryJSON is m as memory show --json prints it.
func SiteMemoryJSON(m *bus.SiteMemory) any {
	routines := make([]routineJSON, len(m.Routines))
	for i, r := range m.Routines {
		routines[i] = routineJSON{Routine: r}
		p, err := r.Fragment()
		if err != nil {
			routines[i].Error = err.Error()
			continue
		}
		routines[i].Params, routines[i].Does, routines[i].Post = slices.Sorted(maps.Keys(p.Params)), p.Intent, p.Verify
	}
	return struct {
		Fingerprint string        `json:"fingerprint"`
		Routines    []routineJSON `json:"routines"`
		Facts       []schema.Fact `json:"facts"`
		Brief       *schema.Brief `json:"brief,omitempty"`
	}{m.Fingerprint, routines, m.Facts, m.Brief}
}
