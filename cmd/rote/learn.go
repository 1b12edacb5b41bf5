package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/cmd/rote/runlog"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
	"github.com/spf13/cobra"
)

// learnFlags declare, after the fact, what a run recorded without flags
// was: its task, parameters, secrets, verify gate, and the slice of its
// calls that did it. rote learn and rote distill take them.
type learnFlags struct {
	name, text      string
	params, secrets []string
	verify          []string
	from, to        uint64
}

func (l *learnFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&l.name, "name", "", "the playbook's name (default the task's)")
	f.StringVar(&l.text, "text", "", "the task in words, with the parameters' values in it (default the recorded text)")
	f.StringArrayVar(&l.params, "param", nil, "a parameter of the task, name=value as the session used it (repeatable; replaces the recorded ones)")
	f.StringArrayVar(&l.secrets, "secret", nil, "a secret parameter, name=value as the session typed it, or name alone for $ROTE_SECRET_NAME (out of ps's sight); stored only as a digest (repeatable)")
	f.StringArrayVar(&l.verify, "verify", nil, "an assertion on the result of the last call kept, e.g. 'text_visible: Saved' (repeatable)")
	f.Uint64Var(&l.from, "from", 0, "keep only the tool calls from this sequence number (rote runs show lists them)")
	f.Uint64Var(&l.to, "to", 0, "keep only the tool calls up to this sequence number")
}

// describesOneRun reports whether a flag that says what one run did is
// given: with several runs, each carries its own.
func (l *learnFlags) describesOneRun() bool {
	return l.text != "" || len(l.params) > 0 || len(l.verify) > 0 || l.from > 0 || l.to > 0
}

// declare applies the flags to run runID's fold (never to the run log)
// and prints what the slice kept and the gate checked. It returns the
// fold and the clear values a shadow replay needs.
func (l *learnFlags) declare(ctx context.Context, app *cli.App, b *bus.Bus, runID string) (*schema.RunFold, map[string]string, error) {
	params, secrets, err := cli.TaskValues(l.params, l.secrets)
	if err != nil {
		return nil, nil, err
	}
	exps, err := cli.ParseExpects(l.verify)
	if err != nil {
		return nil, nil, err
	}
	d := runlog.Declaration{Name: l.name, Text: l.text, Params: params, Secrets: secrets, Verify: exps, From: l.from, To: l.to}
	var key []byte
	if d.Text != "" || len(params)+len(secrets) > 0 {
		if key, err = node.SecretKey(app.DataDir); err != nil {
			return nil, nil, err
		}
	}
	got, err := runlog.Declare(ctx, b.Runs(), runID, d, key)
	var verr *runlog.VerifyError
	switch {
	case errors.Is(err, runlog.ErrBadDeclaration):
		return nil, nil, cli.Usage(err)
	case errors.As(err, &verr):
		runlog.WriteChecks(app.Stdout, "", verr.Checks)
		return nil, nil, err
	case err != nil:
		return nil, nil, err
	}
	if got.Sliced > 0 {
		c := got.Fold.Calls
		fmt.Fprintf(app.Stdout, "slice: %d tool call(s), seq %d to %d\n", got.Sliced, c[0].Seq, c[len(c)-1].Seq)
	}
	runlog.WriteChecks(app.Stdout, "", got.Checks)
	return got.Fold, got.Values, nil
}

func newLearnCommand(app *cli.App) *cobra.Command {
	var lf learnFlags
	var base, target string
	cmd := &cobra.Command{
		Use:   "learn RUN [RUN...] [--name NAME] [flags] [-- MCP-SERVER-COMMAND ...]",
		Short: "Turn a finished session into a promoted playbook: verify, distill, shadow-replay, promote",
		Long: `learn makes a playbook of a session recorded without flags, in one command:
--param and --secret declare the task's parameters with the values the session
used, --verify checks what its last result must show, and --from/--to keep
only the tool calls that did this task, for a session that did several.
It then distills the candidate, replays it against the MCP server after -- as
a shadow run (the task is done again: its effects happen), and stores it only
when the shadow replay verifies. Each stage is printed.

  rote learn 01JB... --name register-vendor \
    --text "Register the vendor Acme GmbH, tax ID DE123456789" \
    --param company="Acme GmbH" --param tax_id=DE123456789 \
    --secret password=... --verify 'text_visible: Vendor Acme GmbH registered' \
    -- npx @playwright/mcp --headless

A secret the session was not told of is in its run log in clear; the playbook
and every later run keep only its digest.

Given several runs of one task (each recorded with its own --param values),
learn makes the one playbook that explains every run: what differs between
them must be a parameter, a choice among records keeps only the rules that
chose in every run, a check one run's page did not give is dropped, and a
run the playbook cannot explain is refused by its id. The shadow replay
uses the first run's values, and --secret name=value gives a secret's clear
value for it. --param, --text, --verify, --from and --to describe one run
and are refused with several.`,
		Args: cli.Args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			a, server := cli.SplitAtDash(cmd, a)
			if len(a) == 0 {
				return cli.Usagef("learn takes at least one RUN before --")
			}
			if len(a) > 1 && lf.describesOneRun() {
				return cli.Usagef("--param, --text, --verify, --from and --to describe one run: with %d runs each carries its own (record them with rote record --param ...), or learn each alone", len(a))
			}
			ctx := cmd.Context()
			b, err := app.Bus(ctx)
			if err != nil {
				return err
			}
			// With several runs, each keeps the task it recorded: --secret
			// gives only the clear values the shadow replay types.
			each, shadowSecrets := lf, map[string]string(nil)
			if len(a) > 1 {
				if _, shadowSecrets, err = cli.TaskValues(nil, lf.secrets); err != nil {
					return err
				}
				each.secrets = nil
			}
			var runs []*schema.RunFold
			var values map[string]string
			for i, id := range a {
				r, v, err := each.declare(ctx, app, b, id)
				if err != nil {
					return err
				}
				if i == 0 {
					values = v // the shadow replay does the first run's task again
				}
				runs = append(runs, r)
			}
			if values == nil {
				values = map[string]string{}
			}
			if len(shadowSecrets) > 0 {
				key, err := node.SecretKey(app.DataDir)
				if err != nil {
					return err
				}
				for k, v := range shadowSecrets {
					// Typed by the shadow replay, a wrong secret is a failed
					// sign-in, or a locked account: it must be the one the
					// first run recorded.
					if recorded := runs[0].Spec.Task.Params[k]; recorded == "" || (schema.Redactor{Key: key}).Digest(v) != recorded {
						return cli.Usagef("--secret %s does not match the secret run %s recorded", k, runs[0].Spec.RunID)
					}
					values[k] = v
				}
			}
			r := runs[0]
			if base == "" && len(server) == 0 {
				base = runlog.SiteOf(r)
			}
			if len(r.Actions) > 0 && r.Spec.Fingerprint == "" && base != "" {
				// A browser session served to a client (rote mcp browser)
				// names no site: the playbook is the one it replays on.
				if u, err := url.Parse(base); err == nil && schema.Origin(u) != "" {
					r.Spec.Fingerprint, _ = schema.Fingerprint(tools.BrowserEnvironment(schema.Origin(u)))
				}
			}
			for _, other := range runs[1:] {
				if len(other.Actions) > 0 && other.Spec.Fingerprint == "" {
					other.Spec.Fingerprint = r.Spec.Fingerprint
				}
			}
			c, err := distillFolds(app, runs, lf.name)
			if err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "distilled %s: %d step(s), %d parameter(s), verify %d", c.Playbook.Name, len(c.Playbook.Steps), len(c.Playbook.Params), len(c.Playbook.Verify))
			if len(runs) > 1 {
				fmt.Fprintf(app.Stdout, ", explaining all %d runs", len(runs))
			}
			fmt.Fprintln(app.Stdout)
			if target == "" && len(r.Inventories) > 0 {
				target = r.Inventories[len(r.Inventories)-1].Environment.Identity.Target
			}
			return shadowPromote(ctx, app, c, values, node.Environment{Base: base, Server: server, Target: target, Stderr: os.Stderr}, "--secret")
		},
	}
	lf.register(cmd)
	cmd.Flags().StringVar(&base, "url", "", "the site of a browser run's shadow replay (default the run's)")
	cmd.Flags().StringVar(&target, "target", "", "the MCP environment's name (default the recorded one)")
	return cmd
}
