package records

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// Take reads the names of the first n records of role that p's pattern
// finds on a page, in the page's order (fewer when the page lists
// fewer), and says what it read, for the record of the run. A page with
// no such records fails with schema.CodeNotFound.
func Take(p *schema.Pick, role string, nodes []schema.ObservedNode, n int) ([]string, string, error) {
	set, err := pickRecords(p, role, nodes)
	if err != nil {
		return nil, "", err
	}
	var names []string
	for _, r := range set.Records[:min(n, len(set.Records))] {
		names = append(names, r.Name)
	}
	return names, fmt.Sprintf("the first %d of %d %s records: %s", len(names), len(set.Records), role, schema.ClipList(names, 5)), nil
}

// Keys reads the keys of the records of role that p's pattern finds on a
// page, in the page's order: the options of a judgment among them. A page
// with no such records fails with schema.CodeNotFound. Keys that repeat
// could not tell the records apart, and a page with more than
// schema.MaxRecords is more than a judgment reads: both fail with
// schema.CodeAmbiguous.
func Keys(p *schema.Pick, role string, nodes []schema.ObservedNode) ([]string, error) {
	set, err := pickRecords(p, role, nodes)
	if err != nil {
		return nil, err
	}
	if set.More > 0 {
		return nil, schema.Errorf(schema.CodeAmbiguous, "more than %d %s records to choose among", schema.MaxRecords, role)
	}
	keys := make([]string, len(set.Records))
	for i, r := range set.Records {
		if slices.Contains(keys[:i], r.Key) {
			return nil, schema.Errorf(schema.CodeAmbiguous, "two %s records have the key %q: a choice of one could not tell them apart", role, r.Key)
		}
		keys[i] = r.Key
	}
	return keys, nil
}

// Choose applies p to the records of role on a page. It returns the
// index in nodes of the chosen control and what the evaluation found, in
// words, for the record of the run. It fails with schema.CodeNotFound
// when the page has no such records or a rule's column is gone, and with
// schema.CodeAmbiguous when a rule cannot choose one record or the rules
// disagree.
func Choose(p *schema.Pick, role string, nodes []schema.ObservedNode) (int, string, error) {
	set, err := pickRecords(p, role, nodes)
	if err != nil {
		return 0, "", err
	}
	if err := placesRows(p, nodes, set); err != nil {
		return 0, "", err
	}
	chosen := -1
	for _, r := range p.Rules {
		k, err := r.Apply(set.RecordSet)
		if err != nil {
			return 0, "", err
		}
		if chosen >= 0 && k != chosen {
			return 0, "", schema.Errorf(schema.CodeAmbiguous, "the rules disagree on this page, which they must not: %s picks %s, the one before it %s", r.String(), set.Records[k].Label(), set.Records[chosen].Label())
		}
		chosen = k
	}
	return set.nodes[chosen], fmt.Sprintf("%s among %d %s records: %s", p, len(set.Records), role, set.Records[chosen].Label()), nil
}

// placesRows refuses a rule by place (first, last, nth) over a table's
// rows when some data row of the table has no such control: the place a
// task states counts rows ("the third person"), and the controls alone
// would count another.
func placesRows(p *schema.Pick, nodes []schema.ObservedNode, set pageSet) error {
	if !p.Rows || !slices.ContainsFunc(p.Rules, func(r schema.PickRule) bool {
		return r.Order == schema.OrderFirst || r.Order == schema.OrderLast || r.Order == schema.OrderNth
	}) {
		return nil
	}
	table := tableRows(nodes)
	rows := 0
	for _, r := range table.rows {
		if strings.EqualFold(r.ctx, set.Within) {
			rows++
		}
	}
	if table.header(set.Within) != nil {
		rows--
	}
	if rows != len(set.Records) {
		return schema.Errorf(schema.CodeAmbiguous, "%d of the table's %d rows have the control: a place counts rows, and it would count only those", len(set.Records), rows)
	}
	return nil
}

// pickRecords finds p's records of role on a page, or fails
// schema.CodeNotFound (schema.Placed's errors for a pick by place).
func pickRecords(p *schema.Pick, role string, nodes []schema.ObservedNode) (pageSet, error) {
	if p.Among != "" {
		return placedRecords(p, role, nodes)
	}
	set := like(nodes, role, p.Name, p.Rows, p.Within)
	if len(set.Records) == 0 {
		return set, schema.Errorf(schema.CodeNotFound, "no %s %q is on the page in %q", role, p.Name, p.Within)
	}
	return set, nil
}

// placedRecords are the records a pick by place counts, each keyed by
// its whole name.
func placedRecords(p *schema.Pick, role string, nodes []schema.ObservedNode) (pageSet, error) {
	idx, err := schema.Placed(nodes, p.Count(role))
	if err != nil {
		return pageSet{}, err
	}
	set := pageSet{RecordSet: schema.RecordSet{Pattern: p.Name, Within: p.Within, Among: p.Among, Radios: p.Field, Shapes: p.Shapes}, nodes: idx}
	for _, j := range idx {
		set.Records = append(set.Records, schema.Record{Name: nodes[j].Name, Key: nodes[j].Name})
	}
	return set, nil
}
