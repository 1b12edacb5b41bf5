package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/recorder"
	"github.com/spf13/cobra"
)

func newRecordCommand(app *cli.App) *cobra.Command {
	var (
		task, text, target string
		params, secrets    []string
		verify             []string
		offer              bool
	)
	cmd := &cobra.Command{
		Use:   "record [flags] -- COMMAND [ARGS...]",
		Short: "Sit between an MCP client and the MCP server COMMAND, and record the session",
		Long: `record starts COMMAND as a stdio MCP server and proxies the client on its own
stdin/stdout to it, forwarding every byte unchanged. Every tools/call goes to
the run log in ROTE_RUNS. Put it in front of any server in your client's
configuration:

  "command": "rote", "args": ["record", "--task", "triage", "--", "npx", "@playwright/mcp"]

Values given with --secret are never stored: they are replaced by digests
wherever they appear in arguments. The exit status is the server's.

--verify EXPECT (repeatable) checks an assertion against the result of the
session's last successful call when it ends, e.g.
  --verify 'text_visible: Vendor Initech registered'
The checks are recorded in the run and decide its outcome; a session without
them is unverified, and rote runs verify can check it afterwards.

The client is also offered, beside the server's tools, the playbooks promoted
for this server (its fingerprint): one tool each, named rote_NAME, with the
playbook's parameters as its input schema. Calling one replays the playbook
over this session, as a run of its own that the recording leaves out, and
answers with the outcome, what was verified and the run id; on a stop, which
step stopped, why, and the steps done. A promotion during the session sends
notifications/tools/list_changed. --offer=false turns this off.`,
		Args: cli.Args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, command []string) error {
			paramMap, secretMap, err := cli.TaskValues(params, secrets)
			if err != nil {
				return err
			}
			exps, err := cli.ParseExpects(verify)
			if err != nil {
				return err
			}
			key, err := node.SecretKey(app.DataDir)
			if err != nil {
				return err
			}
			// What the recorder says (the bus lost, the spool flushed,
			// abandoned runs finished) goes to stderr, never to stdout:
			// that is the client's channel.
			log := slog.New(slog.NewTextHandler(app.Stderr, nil))
			// The client may go away at any moment: a write to a closed
			// stdout must be an error to handle, not a fatal SIGPIPE.
			signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
			var offered *node.RecordOffer
			var recOffer recorder.Offer
			if offer {
				offered = &node.RecordOffer{Ctx: cmd.Context(), Target: target, Config: app.NodeConfig, Stderr: app.Stderr, Log: app.Log}
				defer offered.Close()
				recOffer = offered
			}
			rec, err := recorder.New(recorder.Config{
				Command: command,
				Task:    schema.TaskSpec{Name: task, Text: text, Params: paramMap, Target: target},
				Secrets: secretMap, Target: target, SecretKey: key, DataDir: app.DataDir, Verify: exps,
				Stdin: app.Stdin, Stdout: app.Stdout, Stderr: app.Stderr, Log: log, Offer: recOffer,
			}, func(ctx context.Context) (*bus.Bus, error) {
				cfg, err := app.BusConfig("rote-record")
				if err != nil {
					return nil, err
				}
				cfg.Log = log
				cfg.PublishPatience = -1 // the recorder spools what NATS does not take at once
				b, err := bus.Open(ctx, cfg)
				if err == nil && offered != nil {
					offered.UseBus(b)
				}
				return b, err
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(app.Stderr, "rote record: run %s\n", rec.RunID())
			runErr := rec.Run(cmd.Context())
			if runErr != nil {
				fmt.Fprintln(app.Stderr, "rote record:", runErr)
			}
			if code := rec.ExitCode(); code != 0 {
				return &cli.ExitError{Code: code, Err: fmt.Errorf("MCP server exited with status %d", code)}
			}
			if runErr != nil {
				return runErr
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&task, "task", "", "name of the task class this session performs")
	cmd.Flags().StringVar(&text, "text", "", "the task in words")
	cmd.Flags().StringArrayVar(&params, "param", nil, "a task parameter, name=value (repeatable)")
	cmd.Flags().StringArrayVar(&secrets, "secret", nil, "a secret task parameter, name=value, or name alone for $ROTE_SECRET_NAME (out of ps's sight); never stored in clear (repeatable)")
	cmd.Flags().StringVar(&target, "target", "", "the environment's name (e.g. staging); part of the fingerprint")
	cmd.Flags().BoolVar(&offer, "offer", true, "offer the playbooks promoted for this server as tools")
	cmd.Flags().StringArrayVar(&verify, "verify", nil, "an assertion on the last result when the session ends, e.g. 'text_visible: Saved' (repeatable)")
	return cmd
}
