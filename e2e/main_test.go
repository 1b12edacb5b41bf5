package e2e

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/chromium"
	"github.com/rote-agent/rote/services/recorder/recordertest"
)

// roteBinary is built once by TestMain.
var roteBinary string

func TestMain(m *testing.M) {
	recordertest.ServeIfAsked() // the test binary doubles as our fixture MCP server
	// These tests spend much of their time waiting on browsers, servers
	// and settle windows: unless -parallel says otherwise, four run at
	// once (measured on 2 cores: the -short suite took 264 s at the
	// default of two, 215 s at four, and was no faster at eight).
	flag.Parse()
	parallelGiven := false
	flag.Visit(func(f *flag.Flag) { parallelGiven = parallelGiven || f.Name == "test.parallel" })
	if !parallelGiven {
		flag.Set("test.parallel", "4")
	}

	dir, err := os.MkdirTemp("", "rote-e2e-")
	if err != nil {
		panic(err)
	}
	roteBinary = filepath.Join(dir, "rote")
	build := exec.Command("go", "build", "-o", roteBinary, "github.com/rote-agent/rote/cmd/rote")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("build rote: " + err.Error())
	}
	browser, err := chromium.Launch(context.Background(), "")
	if err != nil {
		panic("the end-to-end suites need /usr/bin/chromium (scripts/setup installs it): " + err.Error())
	}
	// Every rote process the tests start opens its sessions in the shared
	// browser too, through its relay (launching one per process was most
	// of the suite's CPU); a test that needs the launch path sets
	// ROTE_BROWSER empty.
	if sharedBrowser, err = browser.Share(); err != nil {
		panic("share the browser: " + err.Error())
	}
	os.Setenv("ROTE_BROWSER", sharedBrowser)
	code := m.Run()
	browser.Kill()
	os.RemoveAll(dir)
	os.Exit(code)
}

// rote runs the built binary in dir and returns its exit code and output.
func rote(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	return roteEnv(t, dir, nil, args...)
}

// roteEnv is rote with env added to the binary's environment.
func roteEnv(t *testing.T, dir string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(roteBinary, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// long skips a test that takes minutes (a benchmark, a cluster, images,
// WordPress) under -short: the quick loop runs everything else.
func long(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: %s runs only in the full suite", what)
	}
}

// startServe starts bin serve with args and env beside this process's
// environment, stops it when t ends, and returns what it says once it
// says it is running.
func startServe(t *testing.T, bin string, env []string, args ...string) *lockedBuffer {
	t.Helper()
	serve := exec.Command(bin, append([]string{"serve"}, args...)...)
	serve.Env = append(os.Environ(), env...)
	said := &lockedBuffer{}
	serve.Stderr = said
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Signal(os.Interrupt); serve.Wait() })
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(said.String(), "rote serve: running"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", said)
		}
	}
	return said
}
