package schema

import "strings"

// A reference that stands inside a path, or inside a URL before its query
// after a / (notes/{{name}}.md, /records/{{id}}/edit,
// reports/{{steps.list.item}}), fills part of one segment: the playbook's calls reach what the
// recording reached, one name at a time. A value that holds a /, a \ or
// a NUL, or that is . or .., would take the call somewhere else
// (notes/../escaped.md writes outside notes/): it is refused with
// CodeInvalidParam before it is sent. A reference that is the whole of
// its string, that starts it ({{base}}/wp-admin: the root is the
// caller's), or one in prose (text with white space) fills no segment.

// inSegment reports whether the reference at s[at:] fills part of a path
// segment.
func inSegment(s string, at int) bool {
	literal := refPattern.ReplaceAllString(s, "")
	if !strings.Contains(literal, "/") || strings.ContainsAny(literal, " \t\r\n") {
		return false
	}
	return strings.Contains(s[:at], "/") && !strings.ContainsAny(s[:at], "?#")
}

// checkSegment refuses v as the value of r where r fills a path segment.
func checkSegment(r Ref, v string) error {
	if strings.ContainsAny(v, "/\\\x00") || v == "" || v == "." || v == ".." {
		return Errorf(CodeInvalidParam, "{{%s}} fills one segment of a path, and %q would take it elsewhere: give a single name, not empty, without / \\ or NUL, other than . and ..", r, v)
	}
	return nil
}

// checkSegments refuses, before any call, a parameter value that would
// reach outside a path segment it fills in any step's arguments.
func (p *Playbook) checkSegments(b Bindings) error {
	var walk func(v any) error
	walk = func(v any) error {
		switch x := v.(type) {
		case string:
			for _, loc := range refPattern.FindAllStringIndex(x, -1) {
				refs, _ := ParseRefs(x[loc[0]:loc[1]])
				if len(refs) != 1 || refs[0].Param == "" || !inSegment(x, loc[0]) {
					continue
				}
				if v, ok := b.Params[refs[0].Param]; ok {
					if err := checkSegment(refs[0], scalarText(v)); err != nil {
						return err
					}
				}
			}
		case map[string]any:
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		case []any:
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, s := range p.Steps {
		if err := walk(s.Args); err != nil {
			return err
		}
	}
	return nil
}
