package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rote-agent/rote/bench/suite"
)

// The reference MCP servers from npm, pinned in e2e/node: a session is
// recorded through rote record, learned by rote learn with no flags (the
// distiller infers the parameters from the task's text) and with flags,
// and replayed with new values on a changed world. Each replay is judged
// by the server's own state (the files on disk, the memory store's file,
// the repository's HEAD): right, a safe stop (a typed reason and nothing
// changed), or wrong.

// world is the directory a shape's servers work in: fs/ for the
// filesystem server, memory.jsonl for the memory server, repo/ for git.
type world string

func (w world) fs(rel string) string { return filepath.Join(string(w), "fs", rel) }

func (w world) write(t *testing.T, rel, content string) {
	t.Helper()
	p := w.fs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (w world) read(rel string) (string, bool) {
	b, err := os.ReadFile(w.fs(rel))
	return string(b), err == nil
}

func (w world) mkdir(t *testing.T, rel ...string) {
	t.Helper()
	for _, r := range rel {
		if err := os.MkdirAll(w.fs(r), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// git runs git in the world's repository.
func (w world) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", filepath.Join(string(w), "repo")}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com", "GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (w world) memory(t *testing.T, lines ...string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(string(w), "memory.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (w world) memoryFile() string {
	b, _ := os.ReadFile(filepath.Join(string(w), "memory.jsonl"))
	return string(b)
}

// state is everything the servers could have changed, to tell a stop
// that changed nothing.
func (w world) state(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(w.fs(""), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, "%s=%q\n", p, data)
		}
		return nil
	})
	b.WriteString(w.memoryFile())
	if _, err := os.Stat(filepath.Join(string(w), "repo")); err == nil {
		b.WriteString(w.git(t, "rev-parse", "--abbrev-ref", "HEAD"))
	}
	return b.String()
}

// referenceServer is the command line of a reference server in w.
func referenceServer(t *testing.T, name string, w world) []string {
	bin, err := filepath.Abs("node/node_modules/.bin/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s is not installed (run scripts/setup): %v", name, err)
	}
	switch name {
	case "mcp-server-filesystem":
		return []string{bin, w.fs("")}
	case "mcp-server-memory":
		return []string{"env", "MEMORY_FILE_PATH=" + filepath.Join(string(w), "memory.jsonl"), bin}
	}
	return []string{"env", "GIT_BASE_DIR=" + string(w), "LOGS_DIR=" + filepath.Join(string(w), "logs"), bin}
}

// verdicts of a replay, judged by the server's state.
const (
	right    = "right"
	safeStop = "safe stop"
	wrong    = "WRONG"
)

// change is one replay of a shape: the world it runs on, the parameters
// each learned playbook takes, what is right, and whether the right
// action is clear (else a safe stop is what is right).
type change struct {
	name     string
	world    func(t *testing.T, w world)
	noFlags  []string // name=value, the inferred parameters
	flags    []string // name=value, the declared ones
	isRight  func(t *testing.T, w world) bool
	wantStop bool // no right action is clear: a safe stop is right
}

// referenceShape is a task shape on a reference server.
type referenceShape struct {
	name, server, task, verify string
	seed                       func(t *testing.T, w world)
	session                    func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, w world)
	flags                      []string // --param name=value for the flagged learn
	inferred                   []string // name=value the flagless learn must print
	changes                    []change
}

func fsCall(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	return callText(t, ctx, cs, tool, args)
}

// TestReferenceServersAreNeverSilentlyWrong runs the matrix of issue 38
// and prints its table: no replay may be wrong, and every one whose
// right action is clear must be right.
func TestReferenceServersAreNeverSilentlyWrong(t *testing.T) {
	t.Parallel()
	shapes := referenceShapes()
	var mu sync.Mutex
	table := map[string][]string{}
	t.Cleanup(func() {
		var lines []string
		for shape, rows := range table {
			for _, r := range rows {
				lines = append(lines, shape+" | "+r)
			}
		}
		sort.Strings(lines)
		t.Logf("shape | learned | change | verdict\n%s", strings.Join(lines, "\n"))
	})
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			rows := runShape(t, s)
			mu.Lock()
			table[s.name] = rows
			mu.Unlock()
		})
	}
}

// runShape records, learns (without and with flags) and replays one
// shape, and returns its table rows.
func runShape(t *testing.T, s referenceShape) []string {
	root := world(t.TempDir())
	reset := func() {
		t.Helper()
		entries, _ := os.ReadDir(string(root))
		for _, e := range entries {
			os.RemoveAll(filepath.Join(string(root), e.Name()))
		}
		s.seed(t, root)
	}
	reset()
	dir := t.TempDir()
	data := []string{"--data", dir}
	server := referenceServer(t, s.server, root)
	rec := startRecording(t, dir, nil, []string{"--task", s.name, "--text", s.task, "--verify", s.verify}, server...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := rec.connect(t, ctx)
	s.session(t, ctx, cs, root)
	cs.Close()
	rec.cmd.Wait() // learn refuses a session its verify did not pass

	type learned struct {
		name   string
		params func(c change) []string
	}
	var variants []learned
	for _, v := range []struct {
		suffix string
		flags  []string
	}{{"no-flags", nil}, {"flags", s.flags}} {
		if v.suffix == "flags" && len(s.flags) == 0 {
			continue
		}
		reset()
		name := s.name + "-" + v.suffix
		args := append(data, "learn", rec.runID, "--name", name)
		for _, p := range v.flags {
			args = append(args, "--param", p)
		}
		code, out := rote(t, dir, append(append(args, "--"), server...)...)
		if code != 0 || !strings.Contains(out, "promoted "+name+" v1") {
			t.Fatalf("learn %s: exit %d\n%s", v.suffix, code, out)
		}
		if v.flags == nil {
			for _, p := range s.inferred {
				k, val, _ := strings.Cut(p, "=")
				if !strings.Contains(out, fmt.Sprintf("parameter %s=%q inferred", k, val)) {
					t.Fatalf("learn with no flags did not infer %s:\n%s", p, out)
				}
			}
		}
		flagged := v.flags != nil
		variants = append(variants, learned{name, func(c change) []string {
			if flagged {
				return c.flags
			}
			return c.noFlags
		}})
	}

	var rows []string
	for _, v := range variants {
		for _, c := range s.changes {
			reset()
			c.world(t, root)
			before := root.state(t)
			args := append(data, "replay", v.name)
			for _, p := range v.params(c) {
				args = append(args, "--param", p)
			}
			code, out := rote(t, dir, append(append(args, "--"), server...)...)
			verdict := wrong
			switch {
			case code == 0 && c.isRight(t, root):
				verdict = right
			case code != 0 && root.state(t) == before:
				verdict = safeStop
			}
			rows = append(rows, fmt.Sprintf("%s | %s | %s", strings.TrimPrefix(v.name, s.name+"-"), c.name, verdict))
			want := right
			if c.wantStop {
				want = safeStop
			}
			if verdict != want {
				t.Errorf("%s, %s: %s, want %s (exit %d)\n%s", v.name, c.name, verdict, want, code, out)
			}
		}
	}
	return rows
}

// archived lists the reports in archive/ and reports/.
func archived(w world) (archive, reports []string) {
	for _, d := range []struct {
		dir  string
		into *[]string
	}{{"archive", &archive}, {"reports", &reports}} {
		entries, _ := os.ReadDir(w.fs(d.dir))
		for _, e := range entries {
			*d.into = append(*d.into, e.Name())
		}
	}
	return
}

// onlyArchived reports whether the one report in archive/ is name, and
// it left reports/.
func onlyArchived(w world, name string) bool {
	archive, reports := archived(w)
	return len(archive) == 1 && archive[0] == name && !strings.Contains(strings.Join(reports, " "), name)
}

func reports(names ...string) func(t *testing.T, w world) {
	return func(t *testing.T, w world) {
		w.mkdir(t, "archive", "reports")
		for _, n := range names {
			w.write(t, "reports/"+n, "the report "+n+"\n")
		}
	}
}

func referenceShapes() []referenceShape {
	move := func(name string) func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, w world) {
		return func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, w world) {
			listing := fsCall(t, ctx, cs, "list_directory", map[string]any{"path": w.fs("reports")})
			if !strings.Contains(listing, name) {
				t.Fatalf("listing: %s", listing)
			}
			fsCall(t, ctx, cs, "move_file", map[string]any{"source": w.fs("reports/" + name), "destination": w.fs("archive/" + name)})
		}
	}
	note := "Quarterly revenue numbers are up strongly this year. Hiring continues in Berlin.\n"
	copied := func(compose func(string) string) func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, w world) {
		return func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, w world) {
			fsCall(t, ctx, cs, "list_directory", map[string]any{"path": w.fs("inbox")})
			text := fsCall(t, ctx, cs, "read_text_file", map[string]any{"path": w.fs("inbox/q3.md")})
			fsCall(t, ctx, cs, "write_file", map[string]any{"path": w.fs("summary/q3.md"), "content": compose(text)})
		}
	}
	inbox := func(files ...string) func(t *testing.T, w world) {
		return func(t *testing.T, w world) {
			w.mkdir(t, "inbox", "summary")
			for i := 0; i+1 < len(files); i += 2 {
				w.write(t, "inbox/"+files[i], files[i+1])
			}
		}
	}
	holds := func(rel, want string) func(t *testing.T, w world) bool {
		return func(t *testing.T, w world) bool {
			got, ok := w.read(rel)
			return ok && got == want
		}
	}
	people := []string{
		`{"type":"entity","name":"Alice Zhang","entityType":"person","observations":[]}`,
		`{"type":"entity","name":"Bob Okafor","entityType":"person","observations":[]}`,
		`{"type":"entity","name":"Alice Okafor","entityType":"organization","observations":[]}`,
	}
	repo := func(branches ...string) func(t *testing.T, w world) {
		return func(t *testing.T, w world) {
			if err := os.MkdirAll(filepath.Join(string(w), "repo"), 0o755); err != nil {
				t.Fatal(err)
			}
			w.git(t, "init", "-q", "-b", "main")
			os.WriteFile(filepath.Join(string(w), "repo", "f"), []byte("x\n"), 0o644)
			w.git(t, "add", "f")
			w.git(t, "commit", "-qm", "init")
			for _, b := range branches {
				w.git(t, "branch", b)
			}
		}
	}
	onBranch := func(b string) func(t *testing.T, w world) bool {
		return func(t *testing.T, w world) bool { return w.git(t, "rev-parse", "--abbrev-ref", "HEAD") == b }
	}
	return []referenceShape{
		{
			name: "write", server: "mcp-server-filesystem",
			task: "write notes/alpha.md with content call Bob on Monday", verify: "text_visible: Successfully wrote",
			seed: func(t *testing.T, w world) { w.mkdir(t, "notes") },
			session: func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, w world) {
				fsCall(t, ctx, cs, "write_file", map[string]any{"path": w.fs("notes/alpha.md"), "content": "call Bob on Monday"})
			},
			flags:    []string{"name=alpha", "body=call Bob on Monday"},
			inferred: []string{"path=alpha", "content=call Bob on Monday"},
			changes: []change{
				{name: "other name and content", world: func(*testing.T, world) {},
					noFlags: []string{"path=beta", "content=ship it Friday"}, flags: []string{"name=beta", "body=ship it Friday"},
					isRight: holds("notes/beta.md", "ship it Friday")},
				{name: "a name that climbs out (../escaped)", world: func(*testing.T, world) {}, wantStop: true,
					noFlags: []string{"path=../escaped", "content=x"}, flags: []string{"name=../escaped", "body=x"}},
			},
		},
		{
			name: "move-named", server: "mcp-server-filesystem",
			task: "move reports/report-2026-01.md to archive", verify: "text_visible: Successfully moved",
			seed: reports("report-2026-01.md", "report-2026-02.md"),
			session: func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, w world) {
				fsCall(t, ctx, cs, "move_file", map[string]any{"source": w.fs("reports/report-2026-01.md"), "destination": w.fs("archive/report-2026-01.md")})
			},
			flags:    []string{"report=report-2026-01"},
			inferred: []string{"destination=report-2026-01"},
			changes: []change{
				{name: "another named file", world: func(*testing.T, world) {},
					noFlags: []string{"destination=report-2026-02"}, flags: []string{"report=report-2026-02"},
					isRight: func(t *testing.T, w world) bool { return onlyArchived(w, "report-2026-02.md") }},
				{name: "a missing file", world: func(*testing.T, world) {}, wantStop: true,
					noFlags: []string{"destination=report-2027-09"}, flags: []string{"report=report-2027-09"}},
			},
		},
		{
			name: "pick-newest", server: "mcp-server-filesystem",
			task: "archive the newest report in reports", verify: "text_visible: Successfully moved",
			seed: reports("README.md", "report-2026-01.md"), session: move("report-2026-01.md"),
			flags: []string{"dir=reports"}, inferred: []string{"path=reports"},
			changes: []change{
				{name: "a newer report arrived", world: reports("report-2026-02.md"),
					noFlags: []string{"path=reports"}, flags: []string{"dir=reports"},
					isRight: func(t *testing.T, w world) bool { return onlyArchived(w, "report-2026-02.md") }},
				{name: "no report", world: func(t *testing.T, w world) { os.Remove(w.fs("reports/report-2026-01.md")) }, wantStop: true,
					noFlags: []string{"path=reports"}, flags: []string{"dir=reports"}},
			},
		},
		{
			name: "pick-oldest", server: "mcp-server-filesystem",
			task: "archive the oldest report in reports", verify: "text_visible: Successfully moved",
			seed: reports("report-2026-02.md", "report-2026-01.md"), session: move("report-2026-01.md"),
			flags: []string{"dir=reports"}, inferred: []string{"path=reports"},
			changes: []change{
				{name: "an older report there", world: reports("report-2025-12.md", "report-2026-03.md"),
					noFlags: []string{"path=reports"}, flags: []string{"dir=reports"},
					isRight: func(t *testing.T, w world) bool { return onlyArchived(w, "report-2025-12.md") }},
			},
		},
		{
			name: "pick-by-name", server: "mcp-server-filesystem",
			task: "archive the report for 2026-01 from reports", verify: "text_visible: Successfully moved",
			seed: reports("report-2026-02.md", "report-2026-01.md"), session: move("report-2026-01.md"),
			flags: []string{"month=2026-01", "dir=reports"}, inferred: []string{"path=reports", "destination=2026-01"},
			changes: []change{
				{name: "another month", world: func(*testing.T, world) {},
					noFlags: []string{"path=reports", "destination=2026-02"}, flags: []string{"month=2026-02", "dir=reports"},
					isRight: func(t *testing.T, w world) bool { return onlyArchived(w, "report-2026-02.md") }},
				{name: "a month with no report", world: func(*testing.T, world) {}, wantStop: true,
					noFlags: []string{"path=reports", "destination=2027-05"}, flags: []string{"month=2027-05", "dir=reports"}},
			},
		},
		{
			name: "list-read-copy", server: "mcp-server-filesystem",
			task: "copy the note in inbox to summary", verify: "text_visible: Successfully wrote",
			seed: inbox("q3.md", note), session: copied(func(s string) string { return s }),
			flags: []string{"dir=inbox"}, inferred: []string{"path=inbox"},
			changes: []change{
				{name: "another note", world: func(t *testing.T, w world) {
					os.Remove(w.fs("inbox/q3.md"))
					w.write(t, "inbox/q4.md", "Other words entirely.\n")
				},
					noFlags: []string{"path=inbox"}, flags: []string{"dir=inbox"}, isRight: holds("summary/q4.md", "Other words entirely.\n")},
				{name: "same name, other content", world: func(t *testing.T, w world) { w.write(t, "inbox/q3.md", "New content.\n") },
					noFlags: []string{"path=inbox"}, flags: []string{"dir=inbox"}, isRight: holds("summary/q3.md", "New content.\n")},
				{name: "two notes", world: func(t *testing.T, w world) { w.write(t, "inbox/q4.md", "more\n") }, wantStop: true,
					noFlags: []string{"path=inbox"}, flags: []string{"dir=inbox"}},
			},
		},
		{
			name: "list-read-summarize", server: "mcp-server-filesystem",
			task: "summarize the note in inbox into summary", verify: "text_visible: Successfully wrote",
			seed: inbox("q3.md", note), session: copied(suite.Summary),
			flags: []string{"dir=inbox"}, inferred: []string{"path=inbox"},
			changes: []change{
				{name: "another note", world: func(t *testing.T, w world) {
					os.Remove(w.fs("inbox/q3.md"))
					w.write(t, "inbox/q4.md", "Costs fell in the second half. Nothing else moved.\n")
				}, noFlags: []string{"path=inbox"}, flags: []string{"dir=inbox"}, isRight: holds("summary/q4.md", suite.Summary("Costs fell in the second half. Nothing else moved.\n"))},
			},
		},
		{
			name: "create-relate", server: "mcp-server-memory",
			task: "add the person Ada Lovelace who works at Analytical Engines", verify: "text_visible: works_at",
			seed: func(t *testing.T, w world) { w.memory(t, people[0]) },
			session: func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, w world) {
				callText(t, ctx, cs, "create_entities", map[string]any{"entities": []any{
					map[string]any{"name": "Ada Lovelace", "entityType": "person", "observations": []any{}},
					map[string]any{"name": "Analytical Engines", "entityType": "organization", "observations": []any{}},
				}})
				callText(t, ctx, cs, "create_relations", map[string]any{"relations": []any{map[string]any{"from": "Ada Lovelace", "to": "Analytical Engines", "relationType": "works_at"}}})
			},
			flags:    []string{"person=Ada Lovelace", "org=Analytical Engines"},
			inferred: []string{"name=Ada Lovelace", "name_2=Analytical Engines", "entity_type=person"},
			changes: []change{
				{name: "other names", world: func(*testing.T, world) {},
					noFlags: []string{"name=Grace Hopper", "name_2=US Navy", "entity_type=person"}, flags: []string{"person=Grace Hopper", "org=US Navy", "entity_type=person"},
					isRight: func(t *testing.T, w world) bool {
						m := w.memoryFile()
						return strings.Contains(m, `"name":"Grace Hopper","entityType":"person"`) && strings.Contains(m, `"name":"US Navy","entityType":"organization"`) &&
							strings.Contains(m, `"from":"Grace Hopper","to":"US Navy","relationType":"works_at"`) && !strings.Contains(m, "Ada Lovelace")
					}},
			},
		},
		{
			name: "search-act", server: "mcp-server-memory",
			task: "add the note prefers email to the person matching Zhang", verify: "text_visible: prefers email",
			seed: func(t *testing.T, w world) { w.memory(t, people...) },
			session: func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, w world) {
				if hits := callText(t, ctx, cs, "search_nodes", map[string]any{"query": "Zhang"}); !strings.Contains(hits, "Alice Zhang") {
					t.Fatalf("search: %s", hits)
				}
				callText(t, ctx, cs, "add_observations", map[string]any{"observations": []any{map[string]any{"entityName": "Alice Zhang", "contents": []any{"prefers email"}}}})
			},
			flags:    []string{"query=Zhang", "note=prefers email"},
			inferred: []string{"query=Zhang", "contents=prefers email"},
			changes: []change{
				{name: "one hit, another person", world: func(t *testing.T, w world) {
					w.memory(t, append(people, `{"type":"entity","name":"Grace Hopper","entityType":"person","observations":[]}`)...)
				}, noFlags: []string{"query=Hopper", "contents=prefers phone"}, flags: []string{"query=Hopper", "note=prefers phone"},
					isRight: func(t *testing.T, w world) bool {
						return strings.Contains(w.memoryFile(), `"name":"Grace Hopper","entityType":"person","observations":["prefers phone"]`)
					}},
				{name: "two hits, one a person (Okafor)", world: func(*testing.T, world) {},
					noFlags: []string{"query=Okafor", "contents=prefers phone"}, flags: []string{"query=Okafor", "note=prefers phone"},
					isRight: func(t *testing.T, w world) bool {
						m := w.memoryFile()
						return strings.Contains(m, `"name":"Bob Okafor","entityType":"person","observations":["prefers phone"]`) && !strings.Contains(m, `"Alice Okafor","entityType":"organization","observations":["prefers phone"]`)
					}},
				{name: "two people (Okafor)", world: func(t *testing.T, w world) {
					w.memory(t, append(people, `{"type":"entity","name":"Ann Okafor","entityType":"person","observations":[]}`)...)
				}, wantStop: true,
					noFlags: []string{"query=Okafor", "contents=prefers phone"}, flags: []string{"query=Okafor", "note=prefers phone"}},
			},
		},
		{
			name: "newest-branch", server: "git-mcp-server",
			task: "check out the newest release branch", verify: "text_visible: release/2026-01",
			seed: repo("feature/login", "release/2026-01"),
			session: func(t *testing.T, ctx context.Context, cs *mcp.ClientSession, w world) {
				callText(t, ctx, cs, "git_set_working_dir", map[string]any{"path": filepath.Join(string(w), "repo")})
				if list := callText(t, ctx, cs, "git_branch", map[string]any{"mode": "list"}); !strings.Contains(list, "release/2026-01") {
					t.Fatalf("branches: %s", list)
				}
				callText(t, ctx, cs, "git_checkout", map[string]any{"target": "release/2026-01"})
			},
			changes: []change{
				{name: "a newer release branch", world: func(t *testing.T, w world) { w.git(t, "branch", "release/2026-02") },
					isRight: onBranch("release/2026-02")},
				{name: "no release branch", world: func(t *testing.T, w world) { w.git(t, "branch", "-D", "release/2026-01") }, wantStop: true},
			},
		},
	}
}
