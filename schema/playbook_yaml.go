package schema

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// MaxPlaybookBytes is the largest YAML document DecodePlaybook accepts.
const MaxPlaybookBytes = 1 << 20

// DecodePlaybook reads one playbook from YAML strictly (unknown fields,
// duplicate keys, anchors and aliases are rejected) and validates it. Every
// failure is a *ValidationError whose problems carry YAML line numbers.
func DecodePlaybook(data []byte) (*Playbook, error) {
	if len(data) > MaxPlaybookBytes {
		return nil, &ValidationError{Problems: []Problem{{Path: "$", Message: "document larger than 1 MiB"}}}
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
