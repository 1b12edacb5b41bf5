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
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
