package distiller

import (
	"strconv"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// listRead tells which list of the page a read of its main text was
// for: the list whose first records, in the page's order, are the ones
// the run's answer names, and no later one. The step then reads that
// many records of that list, the count bound to the parameter whose
// value it is ("the top {{n}} results"), and a replay answers with the
// records the page lists then, not the whole page.
func (d *distillation) listRead(a *schema.BrowserAction) (*schema.Target, string, bool) {
	answer := d.r.Done()
	if answer == "" {
		return nil, "", false
	}
	best, bestCount := -1, 0
	for i, l := range a.Lists {
		if k := leadingIn(l.Records, answer); k > bestCount && (k < len(l.Records) || l.More == 0) {
			best, bestCount = i, k
		}
	}
	if best < 0 {
		return nil, "", false
	}
	l := a.Lists[best]
	t := &schema.Target{Role: l.Role, Pick: &schema.Pick{Name: l.Pattern, Within: l.Within, Rules: []schema.PickRule{{Order: schema.OrderFirst}}}}
	count := strconv.Itoa(bestCount)
	if v, ok := d.b.whole(count); ok {
		count = v
	} else {
		d.note("%s read the first %s %ss of %q, a number no parameter gives: the replay reads that many", describe(a), count, l.Role, l.Within)
	}
	return t, count, true
}

// leadingIn counts the first records whose names the answer holds, in
// their order, when it holds none of the records after them.
func leadingIn(records []schema.Record, answer string) int {
	k, at := 0, 0
	for _, r := range records {
		i := strings.Index(answer[at:], r.Name)
		if i < 0 {
			break
		}
		at += i + len(r.Name)
		k++
	}
	for _, r := range records[k:] {
		if strings.Contains(answer, r.Name) {
			return 0
		}
	}
	return k
}
