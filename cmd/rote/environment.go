package main

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/actuator"
	"github.com/spf13/cobra"
)

// oneBeforeDash splits a command line at --: one argument before it, the
// MCP server's command after it.
func oneBeforeDash(cmd *cobra.Command, a []string, usage string) ([]string, []string, error) {
	var server []string
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		server, a = a[dash:], a[:dash]
	}
	if len(a) != 1 {
		return nil, nil, usageError("%s", usage)
	}
	return a, server, nil
}

// environment is where a replay runs: a browser on a site, or an MCP
// server started over stdio.
type environment struct {
	base   string   // the site, for a browser
	server []string // the MCP server's command
	target string   // the MCP environment's name
}

// describe names the environment for people.
func (e environment) describe() string {
	if len(e.server) > 0 {
		return "the MCP server " + strings.Join(e.server, " ")
	}
	return "a browser on " + e.base
}

// open returns the opener of the environment for playbook p with params,
// starting the browser planes a browser needs; stop ends them.
func (e environment) open(ctx context.Context, b *bus.Bus, key []byte, p *schema.Playbook, params map[string]string) (actuator.Opener, func(), error) {
	if len(e.server) > 0 {
		redactor := schema.Redactor{Key: key, Values: slices.Collect(maps.Values(p.Secrets(params)))}
		return func(ctx context.Context, runID string) (actuator.Dispatcher, error) {
			return actuator.OpenMCPDispatcher(ctx, actuator.MCPConfig{Command: e.server, Target: e.target, Bus: b, RunID: runID, Redactor: redactor, Stderr: os.Stderr})
		}, func() {}, nil
	}
	if e.base == "" {
		return nil, nil, usageError("a browser replay needs --url, the site to replay on")
	}
	svcs, err := startBrowserPlanes(ctx, b)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context, runID string) (actuator.Dispatcher, error) {
		return actuator.OpenBrowserDispatcher(ctx, b, runID, e.base)
	}, func() { svcs.stop() }, nil
}
