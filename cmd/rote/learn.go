package main

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
	"github.com/spf13/cobra"
)

// learnFlags declare, after the fact, what a run recorded without flags
// was: its task, parameters, secrets, verify gate, and the slice of its
// calls that did it. rote learn and rote distill take them.
type learnFlags struct {
	name, text       string
	params, secrets  []string
	verify           []string
	from, to         uint64
	paramMap, secret map[string]string
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

// declared reports whether any flag redeclares the task.
func (l *learnFlags) declared() bool {
	return l.text != "" || len(l.params)+len(l.secrets) > 0
}

// prepare folds run runID and applies the flags to the fold (never to the
// run log): the slice of calls, the task, its secrets as digests in the
// kept calls, and the verify gate, checked here against the last kept
// result and printed. It returns the fold and the clear values a shadow
// replay needs.
func (l *learnFlags) prepare(ctx context.Context, app *App, b *bus.Bus, runID string) (*schema.RunFold, map[string]string, error) {
	var err error
	if l.paramMap, l.secret, err = taskValues(l.params, l.secrets); err != nil {
		return nil, nil, err
	}
	exps, err := parseExpects(l.verify)
	if err != nil {
		return nil, nil, err
	}
	if l.to != 0 && l.from > l.to {
		return nil, nil, usageError("--from %d is after --to %d", l.from, l.to)
	}
	r, err := b.Runs().Fold(ctx, runID)
	if err != nil {
		return nil, nil, err
	}
	if r.Finished == nil {
		return nil, nil, schema.Errorf(schema.CodeInvalid, "run %s has not finished", runID)
	}
	sliced := l.from != 0 || l.to != 0
	if sliced {
		if len(r.Actions) > 0 {
			return nil, nil, usageError("--from and --to slice an MCP session's tool calls; run %s is a browser run", runID)
		}
		r.Calls = slices.DeleteFunc(r.Calls, func(c *schema.ToolCall) bool { return c.Seq < l.from || l.to != 0 && c.Seq > l.to })
		if len(r.Calls) == 0 {
			return nil, nil, schema.Errorf(schema.CodeInvalid, "run %s has no tool call from %d to %d", runID, l.from, l.to)
		}
		fmt.Fprintf(app.Stdout, "slice: %d tool call(s), seq %d to %d\n", len(r.Calls), r.Calls[0].Seq, r.Calls[len(r.Calls)-1].Seq)
		if len(exps) == 0 {
			return nil, nil, usageError("a slice of a session needs its own --verify: the run's verify was of the whole session")
		}
	}
	values := maps.Clone(r.Spec.Task.Params)
	if l.declared() {
		key, err := node.SecretKey(app.DataDir)
		if err != nil {
			return nil, nil, err
		}
		task := schema.TaskSpec{Name: r.Spec.Task.Name, Text: r.Spec.Task.Text, Target: r.Spec.Task.Target, Params: maps.Clone(l.paramMap)}
		if l.text != "" {
			task.Text = l.text
		}
		if task.Params == nil {
			task.Params = map[string]string{}
		}
		redactor := schema.Redactor{Key: key, Values: slices.Collect(maps.Values(l.secret))}
		for k, v := range l.secret {
			task.Params[k] = redactor.Digest(v)
		}
		r.Spec.Task = task
		if len(l.secret) > 0 {
			scrubRun(r, redactor)
		}
		values = maps.Clone(l.paramMap)
		if values == nil {
			values = map[string]string{}
		}
		maps.Copy(values, l.secret)
	}
	if l.name != "" {
		r.Spec.Task.Name = l.name
	}
	if r.Spec.Task.Text == "" {
		r.Spec.Task.Text = wordsFor(r.Spec.Task)
	}
	if len(exps) > 0 {
		if err := l.check(ctx, app, b, r, exps); err != nil {
			return nil, nil, err
		}
	}
	return r, values, nil
}

// wordsFor is a task's text when none was given: its name and its
// parameters' values (secrets are digests, and left out), so that the
// intent names what varies.
func wordsFor(t schema.TaskSpec) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(t.Params)) {
		if !strings.HasPrefix(t.Params[k], "secret:") {
			parts = append(parts, k+" "+t.Params[k])
		}
	}
	if len(parts) == 0 {
		return t.Name
	}
	return t.Name + " with " + strings.Join(parts, ", ")
}

// scrubRun records the secrets in the kept calls and actions as their
// digests, as the recorder would have had they been declared when it
// recorded (a value the recorder already took for a secret, by its
// schema, is a digest already and stays one).
func scrubRun(r *schema.RunFold, redactor schema.Redactor) {
	for i, c := range r.Calls {
		kept := *c
		args, _ := redactor.Scrub(kept.Arguments)
		res, _ := redactor.Scrub(kept.Result)
		kept.Arguments, kept.Result = schema.RawJSON(args), schema.RawJSON(res)
		r.Calls[i] = &kept
	}
	for i, a := range r.Actions {
		kept := *a
		kept.Action.Value = redactor.ScrubString(kept.Action.Value)
		kept.Action.URL = redactor.ScrubString(kept.Action.URL)
		r.Actions[i] = &kept
	}
	for i, o := range r.Observations {
		kept := *o
		kept.Render = redactor.ScrubString(kept.Render)
		r.Observations[i] = &kept
	}
}

// check checks exps against the last kept result and makes them the
// fold's verify gate.
func (l *learnFlags) check(ctx context.Context, app *App, b *bus.Bus, r *schema.RunFold, exps []schema.Expect) error {
	world, at, err := lastWorld(ctx, b, r)
	if err != nil {
		return err
	}
	checks, passed, err := schema.CheckAll(exps, world)
	if err != nil {
		return err
	}
	printChecks(app.Stdout, "", checks)
	if !passed {
		return &exitError{code: exitFailure, err: fmt.Errorf("run %s does not verify at seq %d: nothing learned", r.RunID, at)}
	}
	r.Verify = &schema.VerifyChecked{Meta: schema.Meta{Time: time.Now()}, RunID: r.RunID, Checks: checks, Passed: true}
	return nil
}

// siteOf is the site a browser run worked on: its task's target, or the
// origin of the first page it observed.
func siteOf(r *schema.RunFold) string {
	if r.Spec.Task.Target != "" || len(r.Observations) == 0 {
		return r.Spec.Task.Target
	}
	if u, err := url.Parse(r.Observations[0].URL); err == nil {
		return schema.Origin(u)
	}
	return ""
}

// lastWorld is what a verify gate is checked against after the fact: the
// last kept successful call's result, or for a browser run its last page
// as rendered (the shadow replay checks the gate on the page itself).
// It says at which sequence number.
func lastWorld(ctx context.Context, b *bus.Bus, r *schema.RunFold) (schema.World, uint64, error) {
	if len(r.Actions) > 0 {
		if len(r.Observations) == 0 {
			return schema.World{}, 0, schema.Errorf(schema.CodeUnverified, "run %s observed no page to verify", r.RunID)
		}
		o := r.Observations[len(r.Observations)-1]
		return schema.World{Page: true, URL: o.URL, Text: o.Render, Render: o.Render}, o.Seq, nil
	}
	last := r.LastResult()
	if last == nil {
		return schema.World{}, 0, schema.Errorf(schema.CodeUnverified, "run %s has no successful tool call to verify", r.RunID)
	}
	result := []byte(last.Result)
	if last.BlobRef != "" {
		var err error
		if result, err = b.Runs().Blob(ctx, last.BlobRef); err != nil {
			return schema.World{}, 0, err
		}
	}
	return schema.ToolResultWorld(result), last.Seq, nil
}

func newLearnCommand(app *App) *cobra.Command {
	var lf learnFlags
	var base, target string
	cmd := &cobra.Command{
		Use:   "learn RUN [--name NAME] [flags] [-- MCP-SERVER-COMMAND ...]",
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
and every later run keep only its digest.`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			a, server, err := oneBeforeDash(cmd, a, "learn takes one RUN before --")
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			b, err := app.Bus(ctx)
			if err != nil {
				return err
			}
			r, values, err := lf.prepare(ctx, app, b, a[0])
			if err != nil {
				return err
			}
			if base == "" && len(server) == 0 {
				base = siteOf(r)
			}
			if len(r.Actions) > 0 && r.Spec.Fingerprint == "" && base != "" {
				// A browser session served to a client (rote mcp browser)
				// names no site: the playbook is the one it replays on.
				if u, err := url.Parse(base); err == nil && schema.Origin(u) != "" {
					r.Spec.Fingerprint, _ = schema.Fingerprint(tools.BrowserEnvironment(schema.Origin(u)))
				}
			}
			c, err := distillFold(app, r, lf.name)
			if err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "distilled %s: %d step(s), %d parameter(s), verify %d\n", c.Playbook.Name, len(c.Playbook.Steps), len(c.Playbook.Params), len(c.Playbook.Verify))
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
