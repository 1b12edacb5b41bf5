package main

import (
	"context"

	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/services/planner"
	"github.com/spf13/cobra"
)

// suiteSupport is what the frozen suites add to rote: the offline
// scripted model, suite tasks on rote.tasks and rote run --suite-task,
// and the bench, demo and model commands. The default build has it
// (suites_on.go); -tags nobench builds rote without it (suites_off.go),
// and every place that needs it says so.
type suiteSupport struct {
	// offline is the scripted model with a simulated latency (cli.App's).
	offline func(latency string) (node.OfflineModel, error)
	// expand fills a claimed task request that names a suite task.
	expand node.SuiteTasks
	// run prepares a suite task for rote run.
	run func(ctx context.Context, id string, rep int, params map[string]string, variant, base string) (*suiteRun, error)
	// commands are the commands that exist only with the suites.
	commands func(app *cli.App) []*cobra.Command
}

// suiteRun is a suite task as rote run does it.
type suiteRun struct {
	id   string
	task planner.Task
	// site names the site this process serves for the task and checks
	// after it; empty on a site of the user's (--url), unchecked.
	site  string
	check func(ctx context.Context, answer string) error
	close func()
}

// errNoSuites says this build has no suites.
const errNoSuites = "this rote is built without the benchmark suites (-tags nobench)"
