//go:build !nobench

package main

import (
	"context"
	"errors"

	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/lab"
)

// builtinSuites is the frozen suites, built in.
func builtinSuites() suiteSupport {
	return suiteSupport{
		offline: lab.Offline,
		expand:  lab.Expand,
		run: func(ctx context.Context, id string, rep int, params map[string]string, variant, base string) (*suiteRun, error) {
			r, err := lab.NewSuiteRun(ctx, id, rep, params, variant, base)
			if errors.Is(err, lab.ErrBadTask) {
				return nil, cli.Usagef("%v", err)
			}
			if err != nil {
				return nil, err
			}
			sr := &suiteRun{id: r.ID(), task: r.Task, check: r.Check, close: r.Close}
			if r.Site != nil {
				sr.site = r.Site.Describe()
			}
			return sr, nil
		},
		commands: lab.Commands,
	}
}
