package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/cmd/rote/safefile"
	"github.com/rote-agent/rote/cmd/rote/view"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/distiller"
	"github.com/spf13/cobra"
)

func newDistillCommand(app *cli.App) *cobra.Command {
	var out string
	var lf learnFlags
	cmd := &cobra.Command{
		Use:   "distill RUN [-o FILE] [--param k=v ... --verify EXPECT ... --from SEQ --to SEQ]",
		Short: "Compile a verified run into a playbook candidate (no model call)",
		Long: `distill reads a finished run from ROTE_RUNS, an agent's browser run or a session
recorded with rote record, and compiles it into a playbook candidate: steps
that do not matter to the outcome are pruned (each with its reason), values
equal to the task's parameters become {{name}}, a choice made among a
control's options becomes a judgment step, and assertions come from state the
page showed after an action. The verify gate is the run's own verified checks.

A session recorded without flags gets them here: --param and --secret declare
the parameters (in place of the recorded ones), --verify checks the gate
against the last result, and --from/--to keep only the tool calls with those
sequence numbers (rote runs show lists them), for a session that did several
tasks. Nothing is written to the run.

It refuses a run that is not a verified success, a value that comes from the
task but is no parameter, and a choice it could only freeze. The candidate is
printed as YAML (or written to -o FILE); promote it with rote promote.`,
		Args: cli.Args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			ctx := cmd.Context()
			b, err := app.Bus(ctx)
			if err != nil {
				return err
			}
			r, _, err := lf.declare(ctx, app, b, a[0])
			if err != nil {
				return err
			}
			c, err := distillFold(app, r, lf.name)
			if err != nil {
				return err
			}
			doc, err := schema.EncodePlaybook(c.Playbook)
			if err != nil {
				return err
			}
			if out == "" {
				_, err = app.Stdout.Write(doc)
				return err
			}
			if err := safefile.Write(out, doc, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "wrote %s: %s, %d step(s), %d verify\n", out, c.Playbook.Name, len(c.Playbook.Steps), len(c.Playbook.Verify))
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the candidate to FILE instead of standard output")
	lf.register(cmd)
	return cmd
}

// distillRun distills run runID as it was recorded.
func distillRun(ctx context.Context, app *cli.App, runID, name string) (*distiller.Candidate, error) {
	b, err := app.Bus(ctx)
	if err != nil {
		return nil, err
	}
	r, err := b.Runs().Fold(ctx, runID)
	if err != nil {
		return nil, err
	}
	return distillFold(app, r, name)
}

// distillFold distills r and reports what it pruned and noted on stderr.
func distillFold(app *cli.App, r *schema.RunFold, name string) (*distiller.Candidate, error) {
	return distillFolds(app, []*schema.RunFold{r}, name)
}

// distillFolds is distillFold for several runs of one task, which the
// playbook must explain each (distiller.DistillRuns).
func distillFolds(app *cli.App, rs []*schema.RunFold, name string) (*distiller.Candidate, error) {
	c, err := distiller.DistillRuns(rs, distiller.Options{Name: name})
	if err != nil {
		return nil, err
	}
	for _, p := range c.Pruned {
		fmt.Fprintf(app.Stderr, "pruned %s: %s\n", p.Step, p.Reason)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(app.Stderr, "note: %s\n", n)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Inferred)) {
		fmt.Fprintf(app.Stdout, "parameter %s=%q inferred from the task's text (--param %s=... names or overrides it)\n", k, c.Inferred[k], k)
	}
	return c, nil
}

func newPromoteCommand(app *cli.App) *cobra.Command {
	var params []string
	var base, target, name, fromRun string
	cmd := &cobra.Command{
		Use:   "promote RUN|FILE [flags] [-- MCP-SERVER-COMMAND ...]",
		Short: "Shadow-replay a candidate against the live environment and store it only when it verifies",
		Long: `promote distills RUN (or reads a candidate FILE), replays it against the live
environment as a shadow run, and only when every step and the verify gate
pass stores it in ROTE_PLAYBOOKS under its fingerprint (version 1 for a new
name) and records playbook.promoted.v1. The shadow replay does the task again:
its effects happen.

The parameters are the source run's (RUN, or --run for a FILE); a secret is
recorded only as a digest, so give it with --param. A browser candidate runs
on the site the source run used unless --url says otherwise; after -- the
candidate runs against that MCP server.`,
		Args: cli.Args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			a, server, err := cli.OneBeforeDash(cmd, a, "promote takes one RUN or FILE before --")
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			b, err := app.Bus(ctx)
			if err != nil {
				return err
			}
			var c *distiller.Candidate
			if cli.IsPlaybookFile(a[0]) {
				p, err := cli.ReadPlaybookFile(a[0])
				if err != nil {
					return err
				}
				c = &distiller.Candidate{Playbook: p, SourceRun: fromRun}
			} else {
				fromRun = a[0]
				if c, err = distillRun(ctx, app, a[0], name); err != nil {
					return err
				}
			}
			given, err := cli.KeyValues("--param", params)
			if err != nil {
				return err
			}
			values := map[string]string{}
			if fromRun != "" {
				src, err := b.Runs().Fold(ctx, fromRun)
				if err != nil {
					return err
				}
				values = src.Spec.Task.Params
				if base == "" && len(server) == 0 {
					base = src.Spec.Task.Target
				}
			}
			for k, v := range given {
				values[k] = v
			}
			return shadowPromote(ctx, app, c, values, node.Environment{Base: base, Server: server, Target: target, Stderr: os.Stderr}, "--param")
		},
	}
	cmd.Flags().StringArrayVar(&params, "param", nil, "a parameter for the shadow replay, name=value (repeatable); secrets must be given")
	cmd.Flags().StringVar(&base, "url", "", "the site of a browser shadow replay (default the source run's)")
	cmd.Flags().StringVar(&target, "target", "", "the MCP environment's name, as given to rote record --target")
	cmd.Flags().StringVar(&name, "name", "", "the playbook's name when distilling RUN (default the task's)")
	cmd.Flags().StringVar(&fromRun, "run", "", "for a FILE: the run it was distilled from, whose parameters and site the shadow replay uses")
	return cmd
}

// shadowPromote shadow-replays candidate c with values in env and
// promotes it when the replay verifies, printing each step. A secret
// that values hold only as its digest is a usage error naming flag.
func shadowPromote(ctx context.Context, app *cli.App, c *distiller.Candidate, values map[string]string, env node.Environment, flag string) error {
	values = c.Values(values)
	for k, decl := range c.Playbook.Params {
		if decl.IsSecret() && (values[k] == "" || strings.HasPrefix(values[k], "secret:")) {
			return cli.Usagef("%s is secret and recorded only as a digest: give it with %s %s=VALUE", k, flag, k)
		}
	}
	n, open, err := app.ReplayNode(ctx, env, c.Playbook, values)
	if err != nil {
		return err
	}
	defer n.Close()
	fmt.Fprintf(app.Stdout, "shadow replay of %s against %s\n", c.Playbook.Name, env.Describe())
	promo, err := n.Promote(ctx, c, values, open, func(r schema.StepReport) { view.Step(app.Stdout, r) })
	if err != nil {
		return err
	}
	fmt.Fprintf(app.Stdout, "promoted %s v%d (fingerprint %s), shadow run %s\n", promo.Entry.Name, promo.Entry.Stored.Version, schema.ShortFingerprint(promo.Entry.Fingerprint), promo.Shadow.RunID)
	return nil
}
