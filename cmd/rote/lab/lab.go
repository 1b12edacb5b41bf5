package lab

import (
	"context"
	"fmt"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/node"
)

// Lab is a suite's site and a node doing its tasks in this process: what
// rote demo and rote bench run on.
type Lab struct {
	Site Site
	Node *node.Node
}

// Open serves (the portal) or reaches (WordPress) the site of suite
// suiteName and starts a node on b with the roles that do tasks
// (node.Tasks) and cfg's other settings.
func Open(ctx context.Context, b *bus.Bus, suiteName string, cfg node.Config) (*Lab, error) {
	var site Site
	var err error
	switch suiteName {
	case suite.SuitePortal, suite.SuiteVariation, suite.SuiteMemory:
		site, err = ServePortal("")
	case suite.SuiteWordPress:
		site, err = OpenWordPress(ctx)
	default:
		err = fmt.Errorf("suite %q: want %s, %s, %s or %s", suiteName, suite.SuitePortal, suite.SuiteWordPress, suite.SuiteVariation, suite.SuiteMemory)
	}
	if err != nil {
		return nil, err
	}
	cfg.Roles = node.Tasks
	n, err := node.New(cfg, b)
	if err == nil {
		err = n.Run(ctx)
	}
	if err != nil {
		site.Close()
		return nil, err
	}
	return &Lab{Site: site, Node: n}, nil
}

// Close stops the node and the site.
func (l *Lab) Close() {
	l.Node.Close()
	l.Site.Close()
}
