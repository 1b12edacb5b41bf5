package distiller

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

// readOnlyTool matches the names of tools that only read: their calls
// may be pruned when nothing later uses what they returned.
var readOnlyTool = regexp.MustCompile(`(^|_)(snapshot|screenshot|list|get|read|search|find|console_messages|network_requests|tabs|query|describe|show|status)($|_)`)

// mcp distills a recorded MCP session: its tool calls become steps.
func (d *distillation) mcp() error {
	type call struct {
		c    *schema.ToolCall
		args map[string]any
	}
	var live []call
	for _, c := range d.r.Calls {
		what := fmt.Sprintf("#%d %s", c.Seq, c.Tool)
		switch {
		case c.Probe:
			d.prune(what, "a replay's probe of the page, not a step of the task")
			continue
		case c.Offered:
			return schema.Errorf(schema.CodeInvalid, "%s replayed a playbook rote offered as a tool, whose calls are in that replay's run, not here: learn the calls before it or after it (--from, --to)", what)
		case c.Error != nil:
			d.prune(what, "failed call: "+string(c.Error.Kind))
			continue
		case c.ArgumentsRef != "":
			return schema.Errorf(schema.CodeTooLarge, "%s has arguments over %d bytes, kept as a blob: not distilled", what, schema.InlineLimit)
		}
		args := map[string]any{}
		if len(c.Arguments) > 0 {
			if err := json.Unmarshal(c.Arguments, &args); err != nil {
				return schema.Errorf(schema.CodeInvalid, "%s: arguments are not a JSON object: %v", what, err)
			}
		}
		live = append(live, call{c, args})
	}
	var producers []producer
	roteBrowser := d.server() == RoteBrowserServer
	for i, lc := range live {
		what := fmt.Sprintf("#%d %s", lc.c.Seq, lc.c.Tool)
		var later []map[string]any
		for _, l := range live[i+1:] {
			later = append(later, l.args)
		}
		// The last call's result is what the session's verify checked: it
		// feeds the outcome.
		if readOnlyTool.MatchString(lc.c.Tool) && i < len(live)-1 && !usedLater(lc.c, later) {
			d.prune(what, "abandoned exploration: a read whose result no later step uses")
			continue
		}
		// A page shows the task's values all the time (a hint's example, a
		// list, the field just typed into), and what is typed into it is
		// the task's: only other servers' results issue values and list
		// items that way.
		picked := lc.args
		if !roteBrowser && !d.browserServer() {
			// What was read and written again is judged on the value as
			// the call passed it, before any part of it is bound.
			var err error
			if picked, err = d.contents(what, lc.c.Tool, lc.args, producers); err != nil {
				return err
			}
			if picked, err = d.pickArgs(what, picked, producers); err != nil {
				return err
			}
			if err := d.notBoth(what, picked, producers); err != nil {
				return err
			}
		}
		args, err := d.templateArgs(what, lc.c.Tool, picked)
		if err != nil {
			return err
		}
		var step schema.Step
		if roteBrowser {
			if step, err = d.roteBrowserStep(what, lc.c, args.(map[string]any), producers); err != nil {
				return err
			}
		} else {
			flowed, err := d.flow(what, args.(map[string]any), producers)
			if err != nil {
				return err
			}
			step = schema.Step{Tool: lc.c.Tool, Args: flowed, Target: d.identity(flowed)}
		}
		step.ID, step.Kind, step.Expect = slug(step.Tool, 40), schema.StepDeterministic, d.checks(lc.c)
		// A read is tried again; a call that changes something is not: it
		// may have done its work before it failed.
		if readOnlyTool.MatchString(lc.c.Tool) {
			step.OnFail = schema.OnFail{Policy: schema.FailRetry, Retries: 1}
		}
		d.add(step)
		if lc.c.BlobRef == "" {
			producers = append(producers, producer{index: len(d.c.Playbook.Steps) - 1, what: what, read: readOnlyTool.MatchString(lc.c.Tool), args: lc.args, world: schema.ToolResultWorld(lc.c.Result)})
		}
		d.visited(lc.args)
	}
	return nil
}

// visited adds the origin a recorded call's url argument went to to the
// playbook's origins: a replay's url arguments stay on the origins the
// session visited, whatever a parameter holds (schema.URLArg).
func (d *distillation) visited(args map[string]any) {
	raw, _ := args[schema.URLArg].(string)
	if o := schema.LiteralOrigin(raw); o != "" && !slices.Contains(d.c.Playbook.Origins, o) {
		d.c.Playbook.Origins = append(d.c.Playbook.Origins, o)
	}
}

// usedLater reports whether any string argument of a later call appears
// in c's result (an item of a listing in it counts), or was written from
// it (contents). A result kept as a blob is taken as used: the distiller
// does not fetch it to prove otherwise.
func usedLater(c *schema.ToolCall, later []map[string]any) bool {
	if c.BlobRef != "" {
		return true
	}
	if len(c.Result) == 0 {
		return false
	}
	result, text := string(c.Result), schema.ToolResultWorld(c.Result).Text
	for _, args := range later {
		for _, s := range stringValues(args) {
			if writtenFrom(s, text) {
				return true
			}
			if len(s) >= 2 && strings.Contains(text, s) { // as the result's text reads, its escapes undone
				return true
			}
			for _, run := range segmentRuns(s) {
				if strings.Contains(result, run) && (run == s || listed(c, run)) || oneLineOf(text, run) {
					return true
				}
			}
		}
	}
	return false
}

// listed reports whether v is an item of a listing in c's result.
func listed(c *schema.ToolCall, v string) bool {
	_, _, ok := listingOf(schema.ToolResultWorld(c.Result), v)
	return ok
}

// mapStrings rebuilds v with each string inside it replaced by f's
// answer; key is the map key a value sits under (an item of a list sits
// under its list's).
func mapStrings(v any, key string, f func(key, s string) (any, error)) (any, error) {
	switch x := v.(type) {
	case string:
		return f(key, x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) { // parameters inferred on the way are named alike every time
			e := x[k]
			t, err := mapStrings(e, k, f)
			if err != nil {
				return nil, err
			}
			out[k] = t
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			t, err := mapStrings(e, key, f)
			if err != nil {
				return nil, err
			}
			out[i] = t
		}
		return out, nil
	}
	return v, nil
}

// stringValues lists the string values inside v.
func stringValues(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case map[string]any:
		var out []string
		for _, e := range x {
			out = append(out, stringValues(e)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, stringValues(e)...)
		}
		return out
	}
	return nil
}

// browserServer reports whether the recorded server drives a browser by
// snapshot refs (it offers browser_snapshot).
func (d *distillation) browserServer() bool {
	if n := len(d.r.Inventories); n > 0 {
		for _, t := range d.r.Inventories[n-1].Environment.Tools {
			if t.Name == tools.Snapshot {
				return true
			}
		}
	}
	return false
}

// templateArgs templates the strings inside a call's arguments. A value
// that comes from the task but matches no parameter is refused, except
// in an argument that only says which control to act on: saying "the
// Register button" where the task said "register" binds nothing, and
// neither does a rote mcp browser click on button "Submit" for a task
// that says "click Submit".
func (d *distillation) templateArgs(what, tool string, v any) (any, error) {
	return mapStrings(v, "", func(key, x string) (any, error) { return d.templateArg(what, tool, key, x) })
}

// describesControl reports whether the argument key of this server's
// calls only names the control a call acts on: @playwright/mcp's
// element, rote mcp browser's target, role, name and near.
func (d *distillation) describesControl(key string) bool {
	switch key {
	case "element":
		return d.browserServer()
	case "target", "role", "name", "near":
		return d.server() == RoteBrowserServer
	}
	return false
}

func (d *distillation) templateArg(what, tool, key, x string) (any, error) {
	if t, ok := d.b.whole(x); ok {
		return t, nil
	}
	if t := d.b.within(x); t != x {
		return t, nil
	}
	if d.describesControl(key) || d.inEnum(tool, key, x) {
		return x, nil
	}
	switch t, why := d.b.converted(x); {
	case t != "":
		d.note("%s passes %q, the task's value converted: %s", what, x, t)
		return t, nil
	case why != "":
		return nil, schema.Errorf(schema.CodeAmbiguous, "%s passes %s", what, why)
	}
	if t, ok := d.inferred(key, x); ok {
		return t, nil
	}
	if d.b.fromTask(x) {
		return nil, schema.Errorf(schema.CodeUnbound, "%s passes %q, which comes from the task but is no parameter: learn it again with --param NAME=VALUE naming the part that varies (nothing needs recording again)", what, x)
	}
	return x, nil
}
