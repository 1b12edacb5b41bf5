package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRecordThenExport records a session through `rote record` with cat
// as the server, then exports the run twice: the same bytes both times.
func TestRecordThenExport(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("y", 70000)
	input := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"user":"ann","pw":"s3cret!"}}}` + "\n" +
		"not json at all\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{"body":"` + big + `"}}}` + "\n"
	code, out, errOut := runWithInput(t, input, "--data", dir, "record", "--task", "login", "--param", "user=ann", "--secret", "pw=s3cret!", "--", "cat")
	if code != 0 {
		t.Fatalf("record: exit %d: %s", code, errOut)
	}
	if out != input {
		t.Fatalf("the client got %d bytes back from cat through the proxy, want the %d it sent", len(out), len(input))
	}
	if !strings.Contains(errOut, "rote record: run ") {
		t.Fatalf("no run id on stderr: %s", errOut)
	}
	runID := strings.Fields(strings.TrimPrefix(errOut[strings.Index(errOut, "rote record: run "):], "rote record: run "))[0]

	export := func(to string) map[string][]byte {
		if code, _, errOut := run(t, "--data", dir, "runs", "export", runID, "--dir", to); code != 0 {
			t.Fatalf("export: exit %d: %s", code, errOut)
		}
		files := map[string][]byte{}
		filepath.Walk(to, func(path string, info os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			// Only its owner may read an export: it is the run's log.
			want := os.FileMode(0o600)
			if info.IsDir() {
				want = 0o700
			}
			if info.Mode().Perm() != want {
				t.Errorf("%s: mode %04o, want %04o", path, info.Mode().Perm(), want)
			}
			if !info.IsDir() {
				rel, _ := filepath.Rel(to, path)
				files[rel], _ = os.ReadFile(path)
			}
			return nil
		})
		return files
	}
	first, second := export(filepath.Join(dir, "a")), export(filepath.Join(dir, "b"))
	if len(first) != 3 { // trajectory, manifest, and the spilled arguments of the big call
		t.Fatalf("exported files: %v", keys(first))
	}
	for name, data := range first {
		if !bytes.Equal(data, second[name]) {
			t.Fatalf("%s differs between two exports", name)
		}
	}
	// Never into a directory others may write, or one under such.
	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	for _, to := range []string{open, filepath.Join(open, "inside")} {
		if code, _, errOut := run(t, "--data", dir, "runs", "export", runID, "--dir", to); code == 0 || !strings.Contains(errOut, "may be written by group or others") {
			t.Errorf("export into %s: exit %d: %s", to, code, errOut)
		}
	}
	traj := string(first["trajectory.jsonl"])
	if strings.Contains(traj, "s3cret!") || strings.Contains(string(first["manifest.json"]), "s3cret!") {
		t.Fatal("the secret is in the export in clear")
	}
	// cat answers nothing (it echoes requests back, which read as server
	// requests), so both calls are lost when the session ends.
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(traj), "\n") {
		var l struct{ Type string }
		json.Unmarshal([]byte(line), &l)
		types = append(types, l.Type)
	}
	want := "run.started.v1 trajectory.unparsed.v1 trajectory.unparsed.v1 trajectory.tool_call.v1 trajectory.tool_call.v1 run.finished.v1"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("trajectory types:\n got %s\nwant %s", got, want)
	}
	var manifest map[string]any
	if err := json.Unmarshal(first["manifest.json"], &manifest); err != nil || manifest["outcome"] != "unverified" {
		t.Fatalf("manifest: %v %s", err, first["manifest.json"])
	}
	code, show, _ := run(t, "--data", dir, "runs", "show", runID)
	if code != 0 || !strings.Contains(show, "trajectory.tool_call   #") || !strings.Contains(show, "in blob store") {
		t.Fatalf("runs show:\n%s", show)
	}
}

func TestRecordUsageErrors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ROTE_SECRET_A", "from-the-environment")
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"record"}, "requires at least 1 arg"},
		{[]string{"record", "--param", "novalue", "--", "cat"}, `--param novalue: $ROTE_SECRET_NOVALUE is not set`},
		{[]string{"record", "--secret", "=x", "--", "cat"}, `--secret: want name=value`},
		// A secret typed without its name is not repeated in the error.
		{[]string{"record", "--secret", "hunter2xyz", "--", "cat"}, "not repeated here, in case it is the secret itself"},
		// A name alone is read from the environment, out of ps's sight.
		{[]string{"record", "--param", "a=1", "--secret", "a", "--", "cat"}, "a is given both as --param and --secret"},
		{[]string{"record", "--param", "a=1", "--param", "a=2", "--", "cat"}, "--param a given twice"},
		{[]string{"record", "--param", "a=1", "--secret", "a=2", "--", "cat"}, "a is given both as --param and --secret"},
	} {
		code, _, errOut := run(t, append([]string{"--data", dir}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.says) || strings.Contains(errOut, "hunter2xyz") {
			t.Errorf("rote %v: exit %d, %q; want 2 saying %q", c.args, code, errOut, c.says)
		}
	}
	code, _, errOut := run(t, "--data", dir, "record", "--", "sh", "-c", "exit 5")
	if code != 5 {
		t.Fatalf("server exit status not passed on: %d %s", code, errOut)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestRecordEndsWhatTheServerStarted: a server's own children (a browser
// it launched, a shell's background job) end with the session.
func TestRecordEndsWhatTheServerStarted(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	code, _, errOut := run(t, "--data", dir, "record", "--", "sh", "-c", "sleep 300 & echo $! > "+pidFile+"; exit 3")
	if code != 3 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		// Gone, or a zombie its new parent has yet to reap.
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the server's child %d outlived the session", pid)
		}
	}
}
