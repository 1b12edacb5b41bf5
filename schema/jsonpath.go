package schema

import (
	"strconv"
	"strings"
)

// JSONPath is a parsed path into a JSON value: `$` followed by `.key`,
// `['key']` / `["key"]` and `[n]` segments, where a negative n counts from
// the end (`$.reports[-1].name` is the last report's name). There are no
// wildcards or filters: a path names exactly one value or none.
type JSONPath struct {
	src  string
	segs []pathSeg
}

type pathSeg struct {
	key   string
	index int
	isIdx bool
}

// ParseJSONPath parses s. A malformed path is an *Error with CodeInvalid.
func ParseJSONPath(s string) (JSONPath, error) {
	bad := func(why string) (JSONPath, error) {
		return JSONPath{}, Errorf(CodeInvalid, "json path %q: %s", s, why)
	}
	if !strings.HasPrefix(s, "$") {
		return bad("must start with $")
	}
	p := JSONPath{src: s}
	rest := s[1:]
	for rest != "" {
		switch rest[0] {
		case '.':
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			key := rest[1 : 1+end]
			if key == "" {
				return bad("empty key after '.'")
			}
			p.segs = append(p.segs, pathSeg{key: key})
			rest = rest[1+end:]
		case '[':
			if len(rest) > 1 && (rest[1] == '\'' || rest[1] == '"') {
				i := 2
				for i < len(rest) && rest[i] != rest[1] {
					if rest[i] == '\\' {
						i++
					}
					i++
				}
				if i+1 >= len(rest) || rest[i+1] != ']' {
					return bad("unclosed quoted key")
				}
				key, err := unquotePathKey(rest[1 : i+1])
				if err != nil {
					return bad("bad quoted key " + rest[1:i+1])
				}
				p.segs = append(p.segs, pathSeg{key: key})
				rest = rest[i+2:]
				continue
			}
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return bad("unclosed '['")
			}
			n, err := strconv.Atoi(rest[1:end])
			if err != nil {
				return bad("index " + strconv.Quote(rest[1:end]) + " is not an integer")
			}
			p.segs = append(p.segs, pathSeg{index: n, isIdx: true})
			rest = rest[end+1:]
		default:
			return bad("unexpected " + strconv.QuoteRune(rune(rest[0])))
		}
	}
	return p, nil
}

// unquotePathKey unquotes a bracketed key: '...' with \' escapes, or a
// Go-syntax "..." string.
func unquotePathKey(s string) (string, error) {
	if s[0] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], `\'`, `'`), nil
	}
	return strconv.Unquote(s)
}

// prefix writes the path's first n segments, for messages.
func (p JSONPath) prefix(n int) string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range p.segs[:n] {
		if s.isIdx {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		} else {
			b.WriteString("." + s.key)
		}
	}
	return b.String()
}

// String returns the path as written.
func (p JSONPath) String() string { return p.src }

// Lookup returns the value at p within v (a value decoded by encoding/json)
// and whether it exists.
func (p JSONPath) Lookup(v any) (any, bool) {
	for _, s := range p.segs {
		switch node := v.(type) {
		case map[string]any:
			if s.isIdx {
				return nil, false
			}
			child, ok := node[s.key]
			if !ok {
				return nil, false
			}
			v = child
		case []any:
			if !s.isIdx {
				return nil, false
			}
			i := s.index
			if i < 0 {
				i += len(node)
			}
			if i < 0 || i >= len(node) {
				return nil, false
			}
			v = node[i]
		default:
			return nil, false
		}
	}
	return v, true
}
