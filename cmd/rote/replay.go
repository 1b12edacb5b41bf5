package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/cmd/rote/view"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
	"github.com/spf13/cobra"
)

func newReplayCommand(app *cli.App) *cobra.Command {
	var params []string
	var base, target, fingerprint string
	var version uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "replay NAME|FILE [flags] [-- MCP-SERVER-COMMAND ...]",
		Short: "Replay a playbook in a browser (default) or against an MCP server, and verify it",
		Long: `replay runs a stored playbook (by name) or a playbook file, step by step, with no
model in the loop for deterministic steps, and checks every step's expect and
then the verify gate. It exits 0 only on a verified success.

Without a command it replays in headless Chromium on the site --url names.
After -- it starts that MCP server over stdio and replays against it; --target
names the environment as rote record --target did.

A playbook bound to a fingerprint is refused against an environment with
another one. A file without a fingerprint is replayed with a warning; a name
is looked up in the store.`,
		Args: cli.Args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			a, server, err := cli.OneBeforeDash(cmd, a, "replay takes one playbook, NAME or FILE, before --")
			if err != nil {
				return err
			}
			paramMap, err := cli.KeyValues("--param", params)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			b, err := app.Bus(ctx)
			if err != nil {
				return err
			}
			p, stored, err := cli.LoadPlaybook(ctx, b, a[0], fingerprint, version)
			if err != nil {
				return err
			}
			// A missing site and parameters that do not bind are the
			// command line's fault: say so before starting a browser.
			env := node.Environment{Base: base, Server: server, Target: target, Stderr: os.Stderr}
			if err := env.Check(); err != nil {
				return cli.Usage(err)
			}
			if _, err := p.Bind(paramMap); err != nil {
				return cli.Usage(err)
			}
			if p.Fingerprint == "" {
				fmt.Fprintf(app.Stderr, "rote replay: warning: %s is not bound to an environment; replaying it as given\n", p.Name)
			}
			n, open, err := app.ReplayNode(ctx, env, p, paramMap)
			if err != nil {
				return err
			}
			defer n.Close()
			request := replay.Request{Playbook: p, Version: stored, Params: paramMap, AllowUnbound: true, Open: open}
			if !asJSON {
				fmt.Fprintf(app.Stdout, "replaying %s against %s\nplanner (slot, judgment and repair steps): %s\n", p.Name, env.Describe(), n.Model().Label)
				request.Progress = func(r schema.StepReport) { view.Step(app.Stdout, r) }
			}
			res, err := n.Executor().Replay(ctx, request)
			if err != nil {
				if errors.Is(err, schema.ErrUnknownParam) || errors.Is(err, schema.ErrMissingParam) || errors.Is(err, schema.ErrParamType) {
					return cli.Usage(err)
				}
				return err
			}
			if asJSON {
				if err := view.JSON(app.Stdout, res); err != nil {
					return err
				}
			} else {
				view.ReplayResult(app.Stdout, res)
			}
			if res.Outcome != schema.OutcomeSuccess {
				return fmt.Errorf("replay %s: %s", res.Outcome, res.Reason)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&params, "param", nil, "a parameter, name=value, or a secret's name alone to read its value from $ROTE_SECRET_NAME, out of ps's sight (repeatable)")
	cmd.Flags().StringVar(&base, "url", "", "the site a browser replay runs on, e.g. http://127.0.0.1:8080")
	cmd.Flags().StringVar(&target, "target", "", "the MCP environment's name, as given to rote record --target")
	cmd.Flags().StringVar(&fingerprint, "fingerprint", "", "the fingerprint of a stored playbook whose name exists under several")
	cmd.Flags().Uint64Var(&version, "version", 0, "the stored version to replay (default the latest)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
