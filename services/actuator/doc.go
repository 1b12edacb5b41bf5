// Package actuator acts on the world: a pool of headless Chromium with
// typed actions, settledness and a fail-closed resolution ladder, and the
// playbook executor that replays verified playbooks over the browser or
// over any MCP server.
//
// Not built yet: it arrives with the browser planes and the executor
// (issues 4 and 5).
package actuator
