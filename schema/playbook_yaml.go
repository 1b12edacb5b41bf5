package schema

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// MaxPlaybookBytes is the largest YAML document DecodePlaybook accepts.
const MaxPlaybookBytes = 1 << 20

// MaxPlaybookNodes bounds the nodes of a playbook's YAML (see
// yamlNesting): a 16-step vendor form has about 150.
const MaxPlaybookNodes = 20000

// DecodePlaybook reads one playbook from YAML strictly (unknown fields,
// duplicate keys, anchors and aliases are rejected) and validates it. Every
// failure is a *ValidationError whose problems carry YAML line numbers.
func DecodePlaybook(data []byte) (*Playbook, error) {
	if len(data) > MaxPlaybookBytes {
		return nil, &ValidationError{Problems: []Problem{{Path: "$", Message: "document larger than 1 MiB"}}}
	}
	if err := yamlNesting(data); err != nil {
		return nil, err
	}
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, yamlFailure(err)
	}
	if len(file.Docs) != 1 || file.Docs[0].Body == nil {
		return nil, &ValidationError{Problems: []Problem{{Path: "$", Message: "want exactly one YAML document"}}}
	}
	body := file.Docs[0].Body
	if node := firstUnsupported(body); node != nil {
		return nil, &ValidationError{Problems: []Problem{{Path: node.GetPath(), Line: node.GetToken().Position.Line,
			Message: "anchors, aliases and tags are not supported in playbooks"}}}
	}
	p, err := nodeToPlaybook(body)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		var verr *ValidationError
		if errors.As(err, &verr) {
			attachLines(file, verr)
		}
		return nil, err
	}
	return p, nil
}

// ReadPlaybook reads at most MaxPlaybookBytes from r and decodes them as
// DecodePlaybook does; a longer stream (a device, a pipe that never
// ends) is refused once the limit is passed, without reading the rest.
func ReadPlaybook(r io.Reader) (*Playbook, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPlaybookBytes+1))
	if err != nil {
		return nil, err
	}
	return DecodePlaybook(data)
}

// yamlNesting refuses, before the parser sees it, a document nested more
// than MaxNesting deep: by flow brackets, plus a line's indentation and
// the block sequences it opens ("- - - x"). The parser's memory grows
// with depth; a few hundred kilobytes of "[" took it to gigabytes.
//
// Brackets inside quoted scalars and comments do not count, and a quote
// opens a scalar only where YAML starts a node (after "[", "{", ",", an
// indicator and a space, or at the start of a line), so that neither a
// quote inside a plain word nor a "]" inside a string hides real nesting.
//
// It also refuses a document of more than MaxPlaybookNodes nodes (each
// "[", "{", ",", block sequence item and "key:" counts one): a wide
// document costs the parser hundreds of bytes a node, and a megabyte of
// "{}," took it to 840 MB.
func yamlNesting(data []byte) error {
	flow, line, indent, dashes, nodes := 0, 1, 0, 0, 0
	lineStart, nodeStart := true, true
	var quote byte
	tooDeep := func() error {
		return &ValidationError{Problems: []Problem{{Path: "$", Line: line, Message: fmt.Sprintf("nested more than %d deep", MaxNesting)}}}
	}
	space := func(i int) bool {
		return i >= len(data) || data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '\n' {
			line++
			lineStart, nodeStart, indent, dashes = true, true, 0, 0
			continue
		}
		if quote != 0 {
			switch {
			case quote == '"' && c == '\\':
				i++
			case quote == '\'' && c == '\'' && i+1 < len(data) && data[i+1] == '\'':
				i++ // '' is a quote inside a single-quoted scalar
			case c == quote:
				quote, nodeStart = 0, false
			}
			continue
		}
		if lineStart {
			switch {
			case c == ' ':
				indent++
				continue
			case c == '-' && space(i+1):
				dashes++
				nodes++
				continue
			}
			lineStart = false
			if indent/2+dashes > MaxNesting {
				return tooDeep()
			}
		}
		switch {
		case c == ' ' || c == '\t' || c == '\r':
		case c == '#' && (i == 0 || space(i-1)):
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case (c == '\'' || c == '"') && nodeStart:
			quote = c
		case c == '[' || c == '{':
			if flow++; flow+indent/2+dashes > MaxNesting {
				return tooDeep()
			}
			nodes++
			nodeStart = true
		case c == ']' || c == '}':
			flow = max(flow-1, 0)
			nodeStart = false
		case c == ',':
			nodes++
			nodeStart = true
		case (c == ':' || c == '-' || c == '?') && space(i+1):
			nodes++
			nodeStart = true
		default:
			nodeStart = false
		}
		if nodes > MaxPlaybookNodes {
			return &ValidationError{Problems: []Problem{{Path: "$", Line: line, Message: fmt.Sprintf("more than %d nodes", MaxPlaybookNodes)}}}
		}
	}
	return nil
}

// nodeToPlaybook decodes the AST. go-yaml has panicked on inputs found by
// fuzzing; a panic there is reported as malformed input, not a crash.
func nodeToPlaybook(body ast.Node) (p *Playbook, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, &ValidationError{Problems: []Problem{{Line: body.GetToken().Position.Line, Message: fmt.Sprintf("malformed YAML (decoder panicked: %v)", r)}}}
		}
	}()
	p = &Playbook{}
	if err := yaml.NodeToValue(body, p, yaml.Strict()); err != nil {
		return nil, yamlFailure(err)
	}
	return p, nil
}

// EncodePlaybook writes p as YAML in the field order of the format; map
// keys are sorted, so the same playbook always gives the same bytes.
func EncodePlaybook(p *Playbook) ([]byte, error) {
	b, err := yaml.MarshalWithOptions(p, yaml.Indent(2), yaml.IndentSequence(true))
	if err != nil {
		return nil, Errorf(CodeInvalid, "encode playbook %s: %v", p.Name, err)
	}
	return b, nil
}

var yamlPrefix = regexp.MustCompile(`^\[\d+:\d+\]\s*`)

// yamlFailure converts a go-yaml error to a one-problem ValidationError.
func yamlFailure(err error) error {
	var yerr yaml.Error
	if errors.As(err, &yerr) {
		p := Problem{Message: yamlPrefix.ReplaceAllString(yerr.GetMessage(), "")}
		if tok := yerr.GetToken(); tok != nil && tok.Position != nil {
			p.Line = tok.Position.Line
		}
		return &ValidationError{Problems: []Problem{p}}
	}
	return &ValidationError{Problems: []Problem{{Message: err.Error()}}}
}

// attachLines sets each problem's line from its path, falling back to the
// nearest enclosing node that exists (a missing key's parent), and sorts
// the problems into document order.
func attachLines(file *ast.File, verr *ValidationError) {
	for i := range verr.Problems {
		verr.Problems[i].Line = lineOf(file, verr.Problems[i].Path)
	}
	sort.SliceStable(verr.Problems, func(i, j int) bool { return verr.Problems[i].Line < verr.Problems[j].Line })
}

func lineOf(file *ast.File, path string) int {
	for path != "" {
		if yp, err := yaml.PathString(path); err == nil {
			if node, err := yp.FilterFile(file); err == nil && node != nil {
				return node.GetToken().Position.Line
			}
		}
		cut := strings.LastIndexAny(path, ".[")
		if cut <= 0 {
			break
		}
		path = path[:cut]
	}
	return 1
}

type unsupportedFinder struct{ found ast.Node }

func (f *unsupportedFinder) Visit(node ast.Node) ast.Visitor {
	if f.found != nil {
		return nil
	}
	switch node.(type) {
	case *ast.AliasNode, *ast.AnchorNode, *ast.TagNode:
		f.found = node
		return nil
	}
	return f
}

// firstUnsupported returns the first anchor, alias or tag node: playbooks
// need none of them, and aliases invite exponential expansion.
func firstUnsupported(node ast.Node) ast.Node {
	f := &unsupportedFinder{}
	ast.Walk(f, node)
	return f.found
}
