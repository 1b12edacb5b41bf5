package distiller

import "github.com/rote-agent/rote/schema"

// verified returns nil for a run whose effect was proven: it finished,
// and its last verify passed (a recorded MCP session is verified by an
// event added after it ended, so its manifest may still say unverified).
// Otherwise a *schema.Error with CodeUnverified says why not.
func verified(r *schema.RunFold) error {
	switch {
	case r.Finished == nil:
		return schema.Errorf(schema.CodeUnverified, "run %s has not finished", r.RunID)
	case r.Finished.Outcome == schema.OutcomeFailed || r.Finished.Outcome == schema.OutcomeAborted || r.Finished.Outcome == schema.OutcomeFallback:
		return schema.Errorf(schema.CodeUnverified, "run %s ended %s: only a verified success is distilled", r.RunID, r.Finished.Outcome)
	case r.Verify == nil:
		return schema.Errorf(schema.CodeUnverified, "run %s has no verify checks: nothing proves its effect (verify a recorded session with rote runs verify)", r.RunID)
	case !r.Verify.Passed:
		return schema.Errorf(schema.CodeUnverified, "run %s failed its verify: only a verified success is distilled", r.RunID)
	}
	return nil
}
