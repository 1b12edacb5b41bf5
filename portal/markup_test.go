package portal

import (
	"regexp"
	"strings"
	"testing"
)

// Structural checks over every page of every variant: ids are unique,
// every id reference resolves (labels included), every field is labelled
// and the tags balance.

// idRef finds the attributes whose values name ids on the same page.
var idRef = regexp.MustCompile(`\s(for|form|aria-labelledby|aria-describedby|aria-controls)="([^"]*)"|\shref="#([^"]*)"`)

func TestLabelsAndReferencesResolve(t *testing.T) {
	for _, v := range allVariants() {
		for _, pg := range tour(t, v) {
			ids := attrValues(pg.body, "id")
			seen := map[string]bool{}
			for _, id := range ids {
				if seen[id] {
					t.Errorf("variant %q %s: duplicate id %q", v, pg.name, id)
				}
				seen[id] = true
			}
			fors := 0
			for _, m := range idRef.FindAllStringSubmatch(pg.body, -1) {
				refs := strings.Fields(m[2] + m[3])
				if m[1] == "for" {
					fors++
				}
				for _, ref := range refs {
					if !seen[ref] {
						t.Errorf("variant %q %s: %s=%q names no element", v, pg.name, m[1], ref)
					}
				}
			}
			// Every visible field is labelled: by aria-label or a label for it.
			labelled := map[string]bool{}
			for _, f := range attrValues(pg.body, "for") {
				labelled[f] = true
			}
			for _, field := range formControl.FindAllString(pg.body, -1) {
				if strings.Contains(field, `type="hidden"`) || strings.Contains(field, ` aria-label="`) {
					continue
				}
				ids := attrValues(field, "id")
				if len(ids) != 1 || !labelled[ids[0]] {
					t.Errorf("variant %q %s: unlabelled field %s", v, pg.name, field)
				}
			}
			if strings.Contains(pg.body, "<label") && fors == 0 {
				t.Errorf("variant %q %s: labels without for", v, pg.name)
			}
		}
	}
}

var formControl = regexp.MustCompile(`<(input|select|textarea)\b[^>]*>`)

var (
	tagToken  = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)\b[^>]*>`)
	voidElems = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
		"img": true, "input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}
)

func TestTagsAreBalanced(t *testing.T) {
	for _, v := range allVariants() {
		for _, pg := range tour(t, v) {
			body := scriptOrStyle.ReplaceAllString(pg.body, "")
			var stack []string
			for _, m := range tagToken.FindAllStringSubmatch(body, -1) {
				name := strings.ToLower(m[2])
				switch {
				case voidElems[name]:
				case m[1] == "":
					stack = append(stack, name)
				case len(stack) == 0 || stack[len(stack)-1] != name:
					t.Fatalf("variant %q %s: </%s> closes %v", v, pg.name, name, stack)
				default:
					stack = stack[:len(stack)-1]
				}
			}
			if len(stack) != 0 {
				t.Errorf("variant %q %s: unclosed %v", v, pg.name, stack)
			}
		}
	}
}
