package e2e

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// postsSite is a list of posts whose rows each carry a Trash button:
// named after the post, as WordPress's list does ("Move “T” to the
// Trash"), or, plain, only "Trash", told apart by its row.
type postsSite struct {
	*httptest.Server
	plain   bool
	mu      sync.Mutex
	posts   []string
	trashed []string
}

func newPostsSite(t *testing.T, plain bool) *postsSite {
	s := &postsSite{plain: plain}
	s.reset()
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.Method == http.MethodPost {
			r.ParseForm()
			title := r.PostForm.Get("title")
			if i := slices.Index(s.posts, title); i >= 0 {
				s.posts = slices.Delete(s.posts, i, i+1)
				s.trashed = append(s.trashed, title)
			}
			fmt.Fprint(w, `<!doctype html><title>Posts</title><main><h1>Posts</h1><p role="status">1 post moved to the Trash.</p></main>`)
			return
		}
		var rows strings.Builder
		for _, p := range s.posts {
			q := html.EscapeString(p)
			label := ` aria-label="Move “` + q + `” to the Trash"`
			if s.plain {
				label = ""
			}
			fmt.Fprintf(&rows, `<tr><td>%s</td><td>admin</td><td><form method="post" action="/trash"><input type="hidden" name="title" value="%s"><button%s>Trash</button></form></td></tr>`, q, q, label)
		}
		fmt.Fprintf(w, `<!doctype html><title>Posts</title><main><h1>Posts</h1><table><thead><tr><th>Title</th><th>Author</th><th>Actions</th></tr></thead><tbody>%s</tbody></table></main>`, rows.String())
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *postsSite) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.posts, s.trashed = []string{"Glacier memo 99", "Harbor log", "Glacier memo 9"}, nil
}

func (s *postsSite) trashedPosts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.trashed)
}

// TestNamedRowReplaysTheNewName records, through rote mcp browser, a
// session that trashes the post named by a parameter, by the row's Trash
// button, and replays it with another title while the recorded post is
// still listed: the new post goes to the Trash, never the recorded one
// (a step that kept the button's id trashed it again and reported
// success). The button is named after the post, or only "Trash": then
// the step picks the row that holds the title.
func TestNamedRowReplaysTheNewName(t *testing.T) {
	long(t, "a rote mcp browser session replayed with another title")
	t.Parallel()
	for _, tc := range []struct {
		name   string
		plain  bool
		button string
	}{
		{"button named after the post", false, "Move “Glacier memo 99” to the Trash"},
		{"plain button in the post's row", true, "Trash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := newPostsSite(t, tc.plain)
			dir := t.TempDir()
			server := []string{roteBinary, "--data", dir, "mcp", "browser"}
			rec := recordSession(t, dir, []string{"--task", "trash-post", "--text", "Trash the post Glacier memo 99",
				"--param", "title=Glacier memo 99", "--target", "posts", "--verify", "text_visible: moved to the Trash"}, server, "2025-06-18", func(c *rawClient) {
				page := c.text("navigate", map[string]any{"url": site.URL + "/"})
				c.text("click", map[string]any{"target": roteID(t, page, "button", tc.button)})
				c.text("done", map[string]any{"reason": "trashed"})
			})
			if got := site.trashedPosts(); !slices.Equal(got, []string{"Glacier memo 99"}) {
				t.Fatalf("the recorded session trashed %v", got)
			}
			site.reset()
			data := []string{"--data", dir}
			code, out := rote(t, dir, append(append(data, "promote", rec.runID, "--target", "posts", "--"), server...)...)
			if code != 0 || !strings.Contains(out, "promoted trash-post v1") {
				t.Fatalf("promote: exit %d\n%s", code, out)
			}
			site.reset()
			code, out = rote(t, dir, append(append(data, "replay", "trash-post", "--target", "posts", "--param", "title=Glacier memo 9", "--"), server...)...)
			if got := site.trashedPosts(); code != 0 || !slices.Equal(got, []string{"Glacier memo 9"}) {
				t.Fatalf("replay with title Glacier memo 9: exit %d, trashed %v\n%s", code, got, out)
			}
			// A title no row holds stops the replay; nothing is trashed.
			site.reset()
			code, out = rote(t, dir, append(append(data, "replay", "trash-post", "--target", "posts", "--param", "title=Glacier memo 7", "--"), server...)...)
			if got := site.trashedPosts(); code == 0 || len(got) != 0 {
				t.Fatalf("replay with a title no row holds: exit %d, trashed %v\n%s", code, got, out)
			}
		})
	}
}
