package e2e

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/services/recorder/recordertest"
)

// snapshotRef finds the ref of a control in a @playwright/mcp snapshot.
func snapshotRef(t *testing.T, snap, role, name string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(role+` "`+name+`"`) + `[^\n]*\[ref=([a-z0-9]+)\]`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no %s %q in the snapshot:\n%.3000s", role, name, snap)
	}
	return m[1]
}

// connect is an MCP client session through the recording proxy, its
// tools listed (so the recorder has the inventory and the fingerprint).
func (r *recording) connect(t *testing.T, ctx context.Context) *mcp.ClientSession {
	t.Helper()
	return r.connectWith(t, ctx, nil)
}

// connectWith is connect for a client with opts (its capabilities).
func (r *recording) connectWith(t *testing.T, ctx context.Context, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "rote-e2e", Version: "1.0"}, opts)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(r.stdout), Writer: r.stdin}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, r.stderr)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestLearnFromRecordedMCPSession records a session through rote record
// in front of @playwright/mcp (sign in, search the catalog), verified when
// it ends; distills and promotes it (its shadow replay drives
// @playwright/mcp again); and replays it by name with a new query: the
// portal sees every sign-in, and the verify gate the new query's results,
// with no model call.
func TestLearnFromRecordedMCPSession(t *testing.T) {
	t.Parallel()
	base, site := portalSite(t, "")
	dir := t.TempDir()
	server := playwrightCommand(t)
	rec := startRecording(t, dir, nil, []string{"--task", "catalog-search", "--text", "Sign in as admin and search the catalog for desk",
		"--param", "username=admin", "--param", "query=desk", "--secret", "password=" + portal.Password, "--target", "portal",
		"--verify", "text_visible: results for “desk”"}, server...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs := rec.connect(t, ctx)
	call := func(name string, args map[string]any) string {
		t.Helper()
		return callText(t, ctx, cs, name, args)
	}
	call("browser_navigate", map[string]any{"url": base + "/login"})
	snap := call("browser_snapshot", map[string]any{})
	call("browser_type", map[string]any{"element": "Username field", "target": snapshotRef(t, snap, "textbox", "Username"), "text": "admin"})
	call("browser_type", map[string]any{"element": "Password field", "target": snapshotRef(t, snap, "textbox", "Password"), "text": portal.Password})
	call("browser_click", map[string]any{"element": "Sign in button", "target": snapshotRef(t, snap, "button", "Sign in")})
	call("browser_navigate", map[string]any{"url": base + "/catalog?q=desk"})
	call("browser_snapshot", map[string]any{})
	call("browser_snapshot", map[string]any{})
	cs.Close()
	rec.cmd.Wait()
	if !strings.Contains(rec.stderr.String(), "rote record: run") {
		t.Fatalf("record: %s", rec.stderr)
	}

	code, out := rote(t, dir, "--data", dir, "runs", "show", rec.runID)
	if code != 0 || !strings.Contains(out, "verify.checked") || strings.Contains(out, portal.Password) {
		t.Fatalf("the recorded run: exit %d\n%s", code, out)
	}
	code, out = rote(t, dir, "--data", dir, "distill", rec.runID)
	for _, want := range []string{"name: catalog-search", `text: "{{username}}"`, `text: "{{password}}"`, "catalog?q={{query}}", "text_visible: results for “{{query}}”"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("distill: exit %d, want %q in\n%s", code, want, out)
		}
	}
	code, out = rote(t, dir, append([]string{"--data", dir, "promote", rec.runID, "--target", "portal", "--param", "password=" + portal.Password, "--"}, server...)...)
	if code != 0 || !strings.Contains(out, "promoted catalog-search v1") {
		t.Fatalf("promote: exit %d\n%s", code, out)
	}
	logins := site.State().Logins
	code, out = rote(t, dir, append([]string{"--data", dir, "replay", "catalog-search", "--target", "portal", "--param", "username=admin", "--param", "query=chair",
		"--param", "password=" + portal.Password, "--"}, server...)...)
	if code != 0 || !strings.Contains(out, "success: verified") || !strings.Contains(out, "0 model call(s)") || !strings.Contains(out, "results for “chair”") {
		t.Fatalf("replay with a new query: exit %d\n%s", code, out)
	}
	if site.State().Logins != logins+1 {
		t.Fatalf("the portal saw %d sign-ins, want %d", site.State().Logins, logins+1)
	}
}

// TestVerifyRecordedRunAfterwards: a session recorded without --verify is
// unverified and the distiller refuses it; rote runs verify checks it
// afterwards against its last result, a failing assertion is recorded as
// such, and a passing one makes the run distillable.
func TestVerifyRecordedRunAfterwards(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd, env := recordertest.Command()
	rec := startRecording(t, dir, env, []string{"--task", "greet", "--text", "say hello", "--param", "greeting=hello"}, cmd...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := rec.connect(t, ctx)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	rec.cmd.Wait()
	data := []string{"--data", dir}
	if code, out := rote(t, dir, append(data, "distill", rec.runID)...); code != 1 || !strings.Contains(out, "unverified") {
		t.Fatalf("distill before verify: exit %d\n%s", code, out)
	}
	if code, out := rote(t, dir, append(data, "runs", "verify", rec.runID, "--expect", "text_visible: goodbye")...); code != 1 || !strings.Contains(out, "verify FAIL") {
		t.Fatalf("a failing verify: exit %d\n%s", code, out)
	}
	if code, out := rote(t, dir, append(data, "runs", "verify", rec.runID, "--expect", "bogus: 1")...); code != 2 {
		t.Fatalf("a malformed expect: exit %d\n%s", code, out)
	}
	if code, out := rote(t, dir, append(data, "runs", "verify", rec.runID, "--expect", "text_visible: hello")...); code != 0 || !strings.Contains(out, "verified") {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
	code, out := rote(t, dir, append(data, "distill", rec.runID)...)
	if code != 0 || !strings.Contains(out, `text: "{{greeting}}"`) || !strings.Contains(out, "text_visible: '{{greeting}}'") && !strings.Contains(out, `text_visible: "{{greeting}}"`) {
		t.Fatalf("distill after verify: exit %d\n%s", code, out)
	}
}

// TestLearnASliceOfAFlaglessSession: a session recorded with no flags
// did two tasks (a greeting, then a sign-in whose password the fixture's
// schema marks). rote runs list summarizes its calls and rote runs show
// lists them with their arguments; rote learn makes a playbook of the
// sign-in alone (--from/--to), with the password declared after the fact
// as a secret, and the next session through rote record is offered it as
// a tool that signs another user in.
func TestLearnASliceOfAFlaglessSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := []string{"--data", dir}
	cmd, env := recordertest.Command()
	rec := startRecording(t, dir, env, nil, cmd...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := rec.connect(t, ctx)
	callText(t, ctx, cs, "echo", map[string]any{"text": "good morning"})
	callText(t, ctx, cs, "login", map[string]any{"user": "ann", "password": "hunter22-x"})
	cs.Close()
	rec.cmd.Wait()

	if code, out := rote(t, dir, append(data, "runs", "list")...); code != 0 || !strings.Contains(out, "(no task) echo×1 login×1") {
		t.Fatalf("runs list: exit %d\n%s", code, out)
	}
	code, out := rote(t, dir, append(data, "runs", "show", rec.runID)...)
	if code != 0 || !strings.Contains(out, `#3 login`) || !strings.Contains(out, `"user":"ann"`) || strings.Contains(out, "hunter22-x") {
		t.Fatalf("runs show: exit %d\n%s", code, out)
	}
	learn := append(data, "learn", rec.runID, "--name", "sign-in", "--from", "3", "--to", "3", "--param", "user=ann", "--secret", "password=hunter22-x")
	if code, out := roteEnv(t, dir, env, append(append(learn, "--"), cmd...)...); code != 2 || !strings.Contains(out, "needs its own --verify") {
		t.Fatalf("a slice without --verify: exit %d\n%s", code, out)
	}
	learn = append(learn, "--verify", "text_visible: welcome ann")
	code, out = roteEnv(t, dir, env, append(append(learn, "--"), cmd...)...)
	for _, want := range []string{"slice: 1 tool call(s), seq 3 to 3", "verify PASS", "distilled sign-in: 1 step(s), 2 parameter(s)", "promoted sign-in v1"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("learn: exit %d, want %q in\n%s", code, want, out)
		}
	}
	if code, out := rote(t, dir, append(data, "playbooks", "show", "sign-in", "-o", "yaml")...); code != 0 || strings.Contains(out, "hunter22-x") ||
		!strings.Contains(out, `password: "{{password}}"`) || strings.Contains(out, "echo") {
		t.Fatalf("the learned playbook: exit %d\n%s", code, out)
	}

	next := startRecording(t, dir, env, nil, cmd...)
	cs = next.connect(t, ctx)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "rote_sign-in", Arguments: map[string]any{"user": "bob", "password": "another-pw"}})
	if err != nil || res.IsError {
		t.Fatalf("rote_sign-in: %v %+v\n%s", err, res, next.stderr)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `done and verified (text_visible "welcome bob")`) {
		t.Fatalf("rote_sign-in answered %q", text)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "rote_sign-in", Arguments: map[string]any{"user": "bob"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "missing_param") {
		t.Fatalf("rote_sign-in without its secret: %v %+v", err, res)
	}
	cs.Close()
	next.cmd.Wait()
	if code, out := rote(t, dir, append(data, "runs", "list")...); code != 0 || strings.Contains(out, "another-pw") || !strings.Contains(out, "sign-in") {
		t.Fatalf("runs list after the tool's replay: exit %d\n%s", code, out)
	}
}
