package wordpress

import "testing"

func TestPostsAreTheSeededTitles(t *testing.T) {
	posts := Posts()
	if len(posts) != 120 {
		t.Fatalf("%d titles, want the 120 seed.php inserts", len(posts))
	}
	seen := map[string]bool{}
	for _, p := range posts {
		if p == "" || seen[p] {
			t.Fatalf("title %q is empty or repeated: the suite finds posts by title", p)
		}
		seen[p] = true
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"Harbor field notes 1": `'Harbor field notes 1'`,
		"O'Brien":              `'O\'Brien'`,
		`back\slash`:           `'back\\slash'`,
		"":                     `''`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
