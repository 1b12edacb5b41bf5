package lab

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/services/planner"
)

// ErrBadTask means a suite task was asked for wrongly: an id, parameter
// or variant the suite does not have, or a variant with a site of one's
// own.
var ErrBadTask = errors.New("bad suite task")

// SuiteRun is one suite task to do, as rote run --suite-task asks: its
// planner task, and, unless the task runs on a site of the caller's, the
// site this process serves for it (the portal in its variant, or the
// WordPress scripts/wordpress set up) whose verifier checks the outcome.
type SuiteRun struct {
	Task  planner.Task
	Site  Site // nil on a site of the caller's
	suite *suite.Task
}

// NewSuiteRun prepares suite task id with repetition rep's parameters,
// given over them, on the site at base, or, without base, on a site it
// serves in variant (default the task's). Errors wrap ErrBadTask when
// the request is wrong.
func NewSuiteRun(ctx context.Context, id string, rep int, given map[string]string, variant, base string) (*SuiteRun, error) {
	st, err := suite.Lookup(id)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadTask, err)
	}
	params := st.Params(rep)
	for k, v := range given {
		if _, ok := params[k]; !ok {
			return nil, fmt.Errorf("%w: suite task %s has no parameter %q", ErrBadTask, st.ID, k)
		}
		params[k] = v
	}
	r := &SuiteRun{suite: st}
	switch {
	case base != "" && variant != "":
		return nil, fmt.Errorf("%w: --variant picks the built-in portal's variant: drop --url", ErrBadTask)
	case base != "":
	case st.Suite == suite.SuiteWordPress && variant != "":
		return nil, fmt.Errorf("%w: WordPress has no variant %q: variants are the fixture portal's", ErrBadTask, variant)
	case st.Suite == suite.SuiteWordPress:
		wp, err := OpenWordPress(ctx)
		if err != nil {
			return nil, err
		}
		r.Site, base = wp, wp.Base()
	default:
		p, err := ServePortal("")
		if err != nil {
			return nil, err
		}
		r.Site, base = p, p.Base()
	}
	if r.Site != nil {
		if err := r.Site.Reset(ctx, cmp.Or(variant, st.Variant)); err != nil {
			r.Site.Close()
			if errors.Is(err, portal.ErrUnknownVariant) {
				return nil, fmt.Errorf("%w: %v (variants: %s)", ErrBadTask, err, strings.Join(portal.Variants(), ", "))
			}
			return nil, err
		}
	}
	r.Task = Task(st, params, base)
	return r, nil
}

// Check is the site's verifier of the task, given the run's answer; nil
// without a site of this process's.
func (r *SuiteRun) Check(ctx context.Context, answer string) error {
	if r.Site == nil {
		return nil
	}
	return r.Site.Check(ctx, r.suite, r.Task.Params, answer)
}

// ID is the suite task's id.
func (r *SuiteRun) ID() string { return r.suite.ID }

// Close stops the site this process serves.
func (r *SuiteRun) Close() {
	if r.Site != nil {
		r.Site.Close()
	}
}
