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

// pathLike reports whether template s is a path or a URL: its text
// outside references holds a / and no white space.
func pathLike(s string) bool {
	literal := refPattern.ReplaceAllString(s, "")
	return strings.Contains(literal, "/") && !strings.ContainsAny(literal, " \t\r\n")
}

// inSegment reports whether the reference at s[at:] of a pathLike s
// fills part of a path segment: a / stands before it, and no ? or #.
func inSegment(s string, at int) bool {
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
	check := func(s string) error {
		if !pathLike(s) {
			return nil
		}
		for _, loc := range refPattern.FindAllStringIndex(s, -1) {
			refs, _ := ParseRefs(s[loc[0]:loc[1]])
			if len(refs) != 1 || refs[0].Param == "" || !inSegment(s, loc[0]) {
				continue
			}
			if v, ok := b.Params[refs[0].Param]; ok {
				if err := checkSegment(refs[0], scalarText(v)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, s := range p.Steps {
		if err := walkStrings(s.Args, check); err != nil {
			return err
		}
	}
	return nil
}
