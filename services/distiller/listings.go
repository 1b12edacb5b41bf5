package distiller

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// A value a later call passes may be one item of a listing an earlier
// result returned: the report a directory listing showed, joined to its
// directory (reports/report-2026-01.md); the branch a branch listing
// named; the name of a search's one hit. Replayed as a constant it would
// act on the recorded item whatever the listing holds then, and rebuilt
// from a parameter by word substitution (Alice {{query}}) on an item the
// listing may not hold. So it is an output of the listing's step that
// chooses among the items at replay by the rule the run followed: the
// item a parameter names, the order the task states (newest, oldest,
// highest, lowest), or the one item there was. A choice among several
// items that no rule explains is refused at learn time.

// pickArgs binds the listing items inside a call's arguments to outputs
// of the steps whose results listed them, leaving the rest of each value
// as it was (the directory joined to a picked name, for templateArgs).
func (d *distillation) pickArgs(what string, args map[string]any, producers []producer) (map[string]any, error) {
	out, err := mapStrings(args, "", func(key, s string) (any, error) {
		return d.pickString(what, key, s, producers)
	})
	if err != nil {
		return nil, err
	}
	return out.(map[string]any), nil
}

// pickString binds the longest run of s's /-separated segments that is
// an item of an earlier listing, the latest listing first.
func (d *distillation) pickString(what, key, s string, producers []producer) (any, error) {
	if strings.Contains(s, "{{") || strings.HasPrefix(s, "secret:") {
		return s, nil
	}
	for _, run := range segmentRuns(s) {
		if _, task := d.b.whole(run); task || d.b.inTask(run) {
			continue // the task's value: notBoth asks whether a result issued it
		}
		for i := len(producers) - 1; i >= 0; i-- {
			p := producers[i]
			o, items, ok := listingOf(p.world, run)
			// The one item of a listing, passed whole, is flow's when it
			// finds it on its own: by a path to a handle or id, or by the
			// text before it on its line and its characters.
			if !ok || len(items) == 1 && run == s && (o.JSON == "" || d.flowBinds(s, p)) {
				continue
			}
			o, err := d.bindPick(what, key, p, o, items, run)
			if err != nil {
				return nil, err
			}
			ref := d.declare(what, p, o, run)
			return strings.Replace(s, run, "{{"+ref+"}}", 1), nil
		}
	}
	// A file-like name that is an item of a listing rote cannot read
	// items from (a name followed by more columns) would be replayed as
	// the recorded one.
	for _, run := range segmentRuns(s) {
		if _, task := d.b.whole(run); task || d.b.inTask(run) || len(run) < minLiteral || !fileLike.MatchString(run) || run == s && isHandle(s) {
			continue
		}
		for i := len(producers) - 1; i >= 0; i-- {
			if oneLineOf(producers[i].world.Text, run) {
				return nil, schema.Errorf(schema.CodeUnbound, "%s passes %q, which %s listed on one of its lines, in a form rote cannot choose from again (more columns after it?): replayed, it would act on that item whatever the listing holds; name it with a parameter, or learn from a plainer listing", what, run, producers[i].what)
			}
		}
	}
	return s, nil
}

// fileLike is a name a listing would hold: no white space, with a dot or
// a digit in it (cafe.log, release/1.10).
var fileLike = regexp.MustCompile(`^[^\s]*[.0-9][^\s]*$`)

// oneLineOf reports whether v stands as a whole token on exactly one of
// the lines of text, a text of several lines that is no JSON: an item of
// a listing.
func oneLineOf(text, v string) bool {
	if isJSONText(text) {
		return false
	}
	lines, holding := 0, 0
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lines++
		if containsToken(l, v) {
			holding++
		}
	}
	return lines >= 2 && holding == 1
}

// flowBinds reports whether flow binds s, the one item of p's listing,
// on its own: a handle, or an id-like field's value, found by its path.
func (d *distillation) flowBinds(s string, p producer) bool {
	if _, ok := d.jsonOutput(p.world, s); !ok {
		return false
	}
	_, _, id := d.producedID(s, []producer{p})
	return isHandle(s) || id
}

// segmentRuns lists the runs of s's /-separated segments, s itself
// first, then the longer before the shorter, each once: for
// reports/2026/r.md, reports/2026/r.md, reports/2026, 2026/r.md, reports,
// 2026, r.md. Runs under two characters are left out.
func segmentRuns(s string) []string {
	segs := strings.Split(s, "/")
	var out []string
	for n := len(segs); n >= 1; n-- {
		for i := 0; i+n <= len(segs); i++ {
			run := strings.Join(segs[i:i+n], "/")
			if len(strings.Trim(run, "/")) >= 2 && !slices.Contains(out, run) {
				out = append(out, run)
			}
		}
	}
	return out
}

// listingOf finds v as an item of a listing in w: a JSON list holding it
// (or holding objects with a field that holds it), on the shortest path;
// else the text lines that end with it after the same text it follows.
// It returns the output that reads the listing (with an item pick that
// has no rule yet) and the listing's items.
func listingOf(w schema.World, v string) (schema.Output, []schema.ListItem, bool) {
	if doc, ok := schema.ResultDocument(w.Output); ok {
		if o, ok := jsonListing(doc, v); ok {
			items, err := o.Items(w, schema.Bindings{})
			return o, items, err == nil
		}
	}
	for _, line := range strings.Split(w.Text, "\n") {
		line = strings.TrimSpace(line)
		// The item ends its line, or its first column (a size after it).
		columns := false
		if m := columnAfter.FindStringIndex(line); m != nil && strings.HasSuffix(line[:m[0]], v) {
			line, columns = line[:m[0]], true
		}
		prefix, ok := strings.CutSuffix(line, v)
		if !ok || prefix != "" && !strings.HasSuffix(prefix, " ") && isTokenByte(prefix[len(prefix)-1]) {
			continue
		}
		o := schema.Output{Line: strings.TrimLeft(prefix, " \t"), Pick: &schema.ItemPick{Columns: columns}}
		if strings.TrimSpace(o.Line) == "" {
			o.Line = ""
		}
		items, err := o.Items(w, schema.Bindings{})
		if err == nil && len(items) > 0 {
			return o, items, true
		}
	}
	return schema.Output{}, nil, false
}

// columnAfter is the gap before a line's second column.
var columnAfter = regexp.MustCompile(`(?:[ \t]{2,}|\t)\S`)

// jsonListing finds the list in doc that holds v as an item or as a
// field of its items, on the shortest path (through one-item lists only).
func jsonListing(doc any, v string) (schema.Output, bool) {
	var found []schema.Output
	var walk func(node any, path string)
	walk = func(node any, path string) {
		switch n := node.(type) {
		case map[string]any:
			for k, c := range n {
				if outputKey.MatchString(k) {
					walk(c, path+"."+k)
				}
			}
		case []any:
			for _, e := range n {
				switch item := e.(type) {
				case map[string]any:
					for _, k := range fieldKeys(item) {
						if s, ok := item[k].(string); ok && s == v {
							found = append(found, schema.Output{JSON: path, Pick: &schema.ItemPick{Field: k}})
						}
					}
				case string:
					if item == v {
						found = append(found, schema.Output{JSON: path, Pick: &schema.ItemPick{}})
					}
				}
			}
			if len(n) == 1 {
				walk(n[0], path+"[0]")
			}
		}
	}
	walk(doc, "$")
	if len(found) == 0 {
		return schema.Output{}, false
	}
	sort.SliceStable(found, func(i, j int) bool { return len(found[i].JSON) < len(found[j].JSON) })
	return found[0], true
}

// fieldKeys lists an object's keys that a pick may name, sorted.
func fieldKeys(m map[string]any) []string {
	var keys []string
	for k := range m {
		if schema.FieldName.MatchString(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
