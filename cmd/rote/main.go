// Command rote memoizes agent trajectories: it records successful agent
// runs at the tool-call boundary, distills them into verified playbooks,
// and replays them without a model in the loop.
//
// Every subcommand shares the global flags --data (the embedded JetStream
// store, default ./.rote, or $ROTE_DATA) and --nats (an external NATS URL,
// or $ROTE_NATS_URL).
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/rote-agent/rote/cmd/rote/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Main runs the rote command line with args and returns the exit code.
// It is what main calls and what tests call.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	suites := builtinSuites()
	app := &cli.App{Stdin: stdin, Stdout: stdout, Stderr: stderr, Offline: suites.offline, SuiteTasks: suites.expand,
		Log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	root := newRootCommand(app, suites)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if cerr := app.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(stderr, "rote:", err)
	}
	return cli.ExitCode(err)
}
