package e2e

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
)

// matcherCorpus reads one of the matcher's testdata corpora: its lines,
// less blanks and # comments, each split at tabs.
func matcherCorpus(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open("../services/matcher/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
			rows = append(rows, strings.Split(l, "\t"))
		}
	}
	return rows
}

var slotName = regexp.MustCompile(`\{\{([a-z0-9_]+)\}\}`)

// TestMatcherInOtherWords stores a playbook per intent of the matcher's
// corpus and sends it tasks as free text, through the matcher and the
// planner's one bounded call tagged matcher (the offline model reading
// other words through its synonyms): no near miss matches; a paraphrase
// matches the playbook it says in other words with exactly its values,
// or misses; none matches another playbook or binds another value. It
// logs the paraphrase hit rate.
func TestMatcherInOtherWords(t *testing.T) {
	t.Parallel()
	n := start(t, nil, node.Matcher, node.Planner)
	b := n.Bus()
	fp := strings.Repeat("d", 64)
	names := map[string]string{} // intent -> playbook name
	for i, row := range matcherCorpus(t, "intents.txt") {
		intent := row[0]
		var params []string
		for _, m := range slotName.FindAllStringSubmatch(intent, -1) {
			params = append(params, m[1])
		}
		p := intentPlaybook("intent-"+string(rune('a'+i)), intent, fp, params)
		storePlaybook(t, b, p)
		names[intent] = p.Name
	}
	nearMisses := matcherCorpus(t, "nearmiss.txt")
	for _, row := range nearMisses {
		if got := match(t, b, fp, row[0], nil); got.Hit {
			t.Errorf("near miss %q matched %s with %v (%s)", row[0], got.Playbook.Name, got.Bindings, got.Reason)
		}
	}
	hits, paraphrases := 0, matcherCorpus(t, "paraphrases.txt")
	for _, row := range paraphrases {
		task, want := row[0], map[string]string{}
		if len(row) > 2 && row[2] != "" {
			for _, kv := range strings.Split(row[2], ";") {
				k, v, _ := strings.Cut(kv, "=")
				want[k] = v
			}
		}
		got := match(t, b, fp, task, nil)
		if !got.Hit {
			t.Logf("paraphrase missed: %q (%s)", task, got.Reason)
			continue
		}
		if got.Playbook.Name != names[row[1]] || len(got.Bindings) != len(want) {
			t.Errorf("%q matched %s with %v, want %s with %v", task, got.Playbook.Name, got.Bindings, names[row[1]], want)
			continue
		}
		for k, v := range want {
			if got.Bindings[k] != v {
				t.Errorf("%q bound %s=%q, want %q", task, k, got.Bindings[k], v)
			}
		}
		hits++
	}
	calls, _ := runLog(t, b, "run-match")
	var most int64
	for _, c := range calls {
		if c.Source != schema.SourceMatcher {
			t.Errorf("a %s call in the matcher's run", c.Source)
		}
		most = max(most, c.Usage.Uncached+c.Usage.CacheRead+c.Usage.CacheWrite)
	}
	if most > 400 {
		t.Errorf("a matcher call sent %d tokens, over 400", most)
	}
	t.Logf("%d near misses, 0 matched; paraphrases matched %d of %d (%.0f%%); %d matcher calls, the largest %d tokens in",
		len(nearMisses), hits, len(paraphrases), 100*float64(hits)/float64(len(paraphrases)), len(calls), most)
	if hits == 0 {
		t.Error("no paraphrase matched")
	}
}
