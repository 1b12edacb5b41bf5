package suite

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rote-agent/rote/bench/wordpress"
	"github.com/rote-agent/rote/schema"
)

// The WordPress suite: the portal suite's task classes (write a record,
// edit a found record, change a setting, and a near miss that must not
// match) on a real WordPress, verified by SQL against its database.

// wpStart is where every WordPress task starts: the admin, which sends a
// visitor to the login page first.
const wpStart = "/wp-admin/"

// wpSeededTagline is the tagline scripts/wordpress seeds.
const (
	wpSeededTitle   = "Rote Test Site"
	wpSeededTagline = "A WordPress for benchmarks"
)

func wpCredentials() map[string]string {
	return map[string]string{"username": wordpress.Username, "password": wordpress.Password}
}

var (
	wpNewPosts      = []string{"Launch checklist", "Spring outlook", "Harvest schedule", "Winter readiness", "Trail restoration"}
	wpRenamedTitles = []string{"Coastal survey", "Market notes", "Bridge inspection", "River cleanup", "Night sky report"}
	wpSiteNames     = []string{"Harbor Cooperative", "Orchard Alliance", "Glacier Works", "Lantern Society", "Meadow Guild"}
	wpTaglines      = []string{"News from the harbor", "Notes from the orchard", "Dispatches from the ice", "Light for the evening", "Grass roots news"}
)

// wpParams gives repetition rep's value from list, numbered so that no
// two repetitions share one.
func wpParams(name string, list []string) func(int) map[string]string {
	return func(rep int) map[string]string {
		p := wpCredentials()
		p[name] = list[rep%len(list)] + " " + strconv.Itoa(rep+1)
		return p
	}
}

// sqlCount is the number of rows of table matching where.
func sqlCount(ctx context.Context, s *wordpress.Site, where string) (int, error) {
	v, err := s.Value(ctx, "SELECT COUNT(*) FROM wp_posts WHERE "+where)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

// wantPosts checks that every where clause matches exactly its count of
// posts.
func wantPosts(ctx context.Context, s *wordpress.Site, counts map[string]int) error {
	for where, want := range counts {
		n, err := sqlCount(ctx, s, where)
		if err != nil {
			return err
		}
		if n != want {
			return fmt.Errorf("%d posts where %s, want %d", n, where, want)
		}
	}
	return nil
}

const published = "post_type = 'post' AND post_status = 'publish'"

// wantOptions checks WordPress's options by SQL.
func wantOptions(ctx context.Context, s *wordpress.Site, want map[string]string) error {
	for name, v := range want {
		got, err := s.Value(ctx, "SELECT option_value FROM wp_options WHERE option_name = "+wordpress.Quote(name))
		if err != nil {
			return err
		}
		if got != v {
			return fmt.Errorf("option %s is %q, want %q", name, got, v)
		}
	}
	return nil
}

// wpTasksText are the texts two tasks each share.
var wpTasksText = map[string]string{
	"W1": "Sign in to WordPress as {{username}} and publish a new post titled “{{title}}”.",
	"W2": "Sign in to WordPress as {{username}} and rename the post “{{old}}” to “{{new}}”.",
}

// wpRenameParams are W2's values: a seeded post and its new title.
func wpRenameParams(rep int) map[string]string {
	p := wpCredentials()
	posts := wordpress.Posts()
	p["old"] = posts[(rep*37+5)%len(posts)]
	p["new"] = wpRenamedTitles[rep%len(wpRenamedTitles)] + " " + strconv.Itoa(rep+1)
	return p
}

// wpRenamed checks W2 by SQL: the post has its new title, the old is gone.
func wpRenamed(ctx context.Context, s *wordpress.Site, p map[string]string, _ string) error {
	return wantPosts(ctx, s, map[string]int{
		published + " AND post_title = " + wordpress.Quote(p["new"]):       1,
		"post_type = 'post' AND post_title = " + wordpress.Quote(p["old"]): 0,
		published: len(wordpress.Posts()),
	})
}

var wpTasks = []*Task{
	{
		ID: "W1", Suite: SuiteWordPress, Name: "wp-publish-post", Start: wpStart,
		Text: wpTasksText["W1"],
		NearMisses: []string{
			"Sign in to WordPress as {{username}} and delete the post titled “{{title}}”.",
			"Sign in to WordPress as {{username}} and publish a new post titled “{{title}}”, then log out.",
		},
		Params: wpParams("title", wpNewPosts), Secrets: []string{"password"},
		Verify: []schema.Expect{{Op: schema.OpTextVisible, Arg: "Post published."}, {Op: schema.OpTextVisible, Arg: "{{title}}"}},
		CheckSQL: func(ctx context.Context, s *wordpress.Site, p map[string]string, _ string) error {
			return wantPosts(ctx, s, map[string]int{
				published + " AND post_title = " + wordpress.Quote(p["title"]): 1,
				published: len(wordpress.Posts()) + 1,
			})
		},
		policy: wpPublish,
	},
	{
		ID: "W2", Suite: SuiteWordPress, Name: "wp-rename-post", Start: wpStart,
		Text: wpTasksText["W2"], Params: wpRenameParams, Secrets: []string{"password"},
		NearMisses: []string{
			"Sign in to WordPress as {{username}} and delete the post “{{old}}”.",
			"Sign in to WordPress as {{username}} and rename the post “{{old}}” to “{{new}}”, then unpublish it.",
		},
		Verify:   []schema.Expect{{Op: schema.OpTextVisible, Arg: "Post updated."}, {Op: schema.OpURLContains, Arg: "post.php"}},
		CheckSQL: wpRenamed, policy: wpRename,
	},
	{
		ID: "W3", Suite: SuiteWordPress, Name: "wp-site-title", Start: wpStart,
		Text: "Sign in to WordPress as {{username}} and change the site title to “{{title}}”.",
		NearMisses: []string{
			"Sign in to WordPress as {{username}} and change the site title to “{{title}}” and the tagline to “Fresh news”.",
			"Sign in to WordPress as {{username}} and do not change the site title to “{{title}}”.",
		},
		Params: wpParams("title", wpSiteNames), Secrets: []string{"password"},
		Verify: []schema.Expect{{Op: schema.OpTextVisible, Arg: "Settings saved."}, {Op: schema.OpURLContains, Arg: "options-general.php"}},
		CheckSQL: func(ctx context.Context, s *wordpress.Site, p map[string]string, _ string) error {
			return wantOptions(ctx, s, map[string]string{"blogname": p["title"], "blogdescription": wpSeededTagline})
		},
		policy: wpSetting("Site Title", "title"),
	},
	{
		ID: "W4", Suite: SuiteWordPress, Name: "wp-tagline", Start: wpStart,
		Text:   "Sign in to WordPress as {{username}} and change the tagline to “{{tagline}}”.",
		Params: wpParams("tagline", wpTaglines), Secrets: []string{"password"},
		Verify: []schema.Expect{{Op: schema.OpTextVisible, Arg: "Settings saved."}, {Op: schema.OpURLContains, Arg: "options-general.php"}},
		CheckSQL: func(ctx context.Context, s *wordpress.Site, p map[string]string, _ string) error {
			return wantOptions(ctx, s, map[string]string{"blogname": wpSeededTitle, "blogdescription": p["tagline"]})
		},
		policy: wpSetting("Tagline", "tagline"),
	},
	// The same ideas as the variation suite, on WordPress: W5 is W1 done
	// by another user than the one it was learned as; W6 trashes a post
	// by its title from the whole list, where the post it was learned on
	// is still listed; W7 is W2 with its values only in the text.
	{
		ID: "W5", Suite: SuiteWordPress, Name: "wp-publish-post", Start: wpStart, Text: wpTasksText["W1"],
		Params: func(rep int) map[string]string {
			p := wpParams("title", wpNewPosts)(rep)
			p["username"], p["password"] = wordpress.EditorUsername, wordpress.EditorPassword
			return p
		},
		Secrets: []string{"password"},
		Verify:  []schema.Expect{{Op: schema.OpTextVisible, Arg: "Post published."}, {Op: schema.OpTextVisible, Arg: "{{title}}"}},
		CheckSQL: func(ctx context.Context, s *wordpress.Site, p map[string]string, _ string) error {
			return wantPosts(ctx, s, map[string]int{
				published + " AND post_title = " + wordpress.Quote(p["title"]) + " AND post_author = (SELECT ID FROM wp_users WHERE user_login = " + wordpress.Quote(p["username"]) + ")": 1,
				published: len(wordpress.Posts()) + 1,
			})
		},
		policy: wpPublish,
	},
	{
		ID: "W6", Suite: SuiteWordPress, Name: "wp-trash-post", Start: wpStart,
		Text: "Sign in to WordPress as {{username}} and move the post “{{title}}” to the Trash.",
		NearMisses: []string{
			"Sign in to WordPress as {{username}} and restore the post “{{title}}” from the Trash.",
			"Sign in to WordPress as {{username}} and move the post “{{title}}” to the Trash, then empty the Trash.",
		},
		Params: func(rep int) map[string]string {
			p := wpCredentials()
			posts := wordpress.Posts()
			// The list's first page holds the 100 newest posts.
			p["title"] = posts[len(posts)-1-(rep*13+4)%90]
			return p
		},
		Secrets: []string{"password"},
		Verify:  []schema.Expect{{Op: schema.OpTextVisible, Arg: "moved to the Trash"}},
		CheckSQL: func(ctx context.Context, s *wordpress.Site, p map[string]string, _ string) error {
			return wantPosts(ctx, s, map[string]int{
				"post_type = 'post' AND post_status = 'trash' AND post_title = " + wordpress.Quote(p["title"]): 1,
				"post_type = 'post' AND post_status = 'trash'":                                                 1,
				published: len(wordpress.Posts()) - 1,
			})
		},
		policy: wpTrash,
	},
	{
		ID: "W7", Suite: SuiteWordPress, Name: "wp-rename-post", Start: wpStart, Text: wpTasksText["W2"], FreeText: true,
		Params: wpRenameParams, Secrets: []string{"password"},
		Verify:   []schema.Expect{{Op: schema.OpTextVisible, Arg: "Post updated."}, {Op: schema.OpURLContains, Arg: "post.php"}},
		CheckSQL: wpRenamed, policy: wpRename,
	},
}

// wpLogin signs in on WordPress's login page; ok is false elsewhere.
func wpLogin(t *turn) (action, bool) { return t.signIn("Username or Email Address", "Log In") }

// editorTitle is the block editor's title field, its value without the
// zero-width placeholder the editor keeps in it.
func editorTitle(p Page) (Node, string, bool) {
	n, ok := p.Find("textbox", "Add title")
	return n, strings.Trim(n.Value, "\ufeff"), ok
}

// wpPublish (W1): open a new post, type its title, publish, confirm.
func wpPublish(t *turn) action {
	if a, ok := wpLogin(t); ok {
		return a
	}
	p := t.page()
	title := t.value("title")
	box, value, ok := editorTitle(p)
	if ok && value == title && p.Text("Post published.") {
		return done("published “" + title + "”")
	}
	if !ok {
		// The toolbar's New opens a new post; the menu's Add New is a
		// flyout that only opens on hover.
		if l, ok := p.Find("link", "New"); ok && t.did("click", "New") == 0 {
			return click(l)
		}
		return fail("no post editor opened")
	}
	if value != title {
		return fill(box, title)
	}
	// The header's Publish opens the pre-publish panel (it toggles, so it
	// has an expanded state); the panel's own Publish confirms.
	var toggle *Node
	for _, n := range p.Nodes {
		if n.Role != "button" || n.Name != "Publish" || n.Has("disabled") {
			continue
		}
		if !n.Has("collapsed") && !n.Has("expanded") {
			return click(n)
		}
		if toggle == nil {
			toggle = &n
		}
	}
	if toggle != nil && toggle.Has("collapsed") {
		return click(*toggle)
	}
	return fail("the editor offers no Publish button")
}

// wpRename (W2): search the posts for the old title, open it, retitle it,
// update.
func wpRename(t *turn) action {
	if a, ok := wpLogin(t); ok {
		return a
	}
	p := t.page()
	old, renamed := t.value("old"), t.value("new")
	if box, value, ok := editorTitle(p); ok {
		switch {
		case value != renamed:
			return fill(box, renamed)
		case p.Text("Post updated."):
			return done("renamed “" + old + "” to “" + renamed + "”")
		}
		if b, ok := p.Find("button", "Update"); ok {
			return click(b)
		}
		return fail("the editor has no Update button")
	}
	if !strings.Contains(t.url(), "edit.php") {
		if l, ok := p.Find("link", "Posts"); ok {
			return click(l)
		}
		return fail("no Posts link on this page")
	}
	box, ok := p.Find("searchbox", "Search Posts:")
	if !ok {
		return fail("the posts list has no search box")
	}
	if box.Value != old {
		return fill(box, old)
	}
	if !strings.Contains(t.url(), "s=") {
		b, _ := p.Find("button", "Search Posts")
		return click(b)
	}
	if l, ok := p.Find("link", "“"+old+"” (Edit)"); ok {
		return click(l)
	}
	return fail("no post is titled “" + old + "”")
}

// wpSetting (W3, W4): open the general settings, set the field labelled
// label to the parameter param, save.
func wpSetting(label, param string) func(*turn) action {
	return func(t *turn) action {
		if a, ok := wpLogin(t); ok {
			return a
		}
		p := t.page()
		want := t.value(param)
		if !strings.Contains(t.url(), "options-general.php") {
			if l, ok := p.Find("link", "Settings"); ok {
				return click(l)
			}
			return fail("no Settings link on this page")
		}
		box, ok := p.Find("textbox", label)
		if !ok {
			return fail("the settings have no " + label + " field")
		}
		if box.Value != want {
			return fill(box, want)
		}
		if p.Text("Settings saved.") {
			return done(label + " is now “" + want + "”")
		}
		b, ok := p.Find("button", "Save Changes")
		if !ok {
			return fail("the settings have no Save Changes button")
		}
		return click(b)
	}
}

// wpTrash (W6): open the posts list, show the post's row actions (they
// appear on hover) and move it to the Trash from its row, among every
// other post of the list.
func wpTrash(t *turn) action {
	if a, ok := wpLogin(t); ok {
		return a
	}
	p := t.page()
	title := t.value("title")
	if p.Text("moved to the Trash") {
		return done("moved “" + title + "” to the Trash")
	}
	if !strings.Contains(t.url(), "edit.php") {
		if l, ok := p.Find("link", "Posts"); ok {
			return click(l)
		}
		return fail("no Posts link on this page")
	}
	row, ok := p.Find("link", "“"+title+"” (Edit)")
	if !ok {
		return fail("the list shows no post titled “" + title + "”")
	}
	if t.did("hover", row.Name) == 0 {
		return hover(row)
	}
	if l, ok := p.Find("link", "Move “"+title+"” to the Trash"); ok {
		return click(l)
	}
	return fail("the row of “" + title + "” shows no Trash link")
}
