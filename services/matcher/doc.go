// Package matcher decides whether a stored playbook can do a task: a hard
// fingerprint gate, an intent shortlist, and parameter binding; anything
// uncertain is a miss that returns control to the agent.
//
// Stage 1 keeps only playbooks bound to the live environment's
// fingerprint (unbound ones are never chosen). Stage 2 slots the task's
// parameter values out of its text and compares what is left with each
// playbook's templated intent, word for word: every content word must
// agree (a near miss, "offboard" for "register", scores below the
// threshold), and a second playbook as good is an ambiguity, a miss.
// Stage 3 binds every declared parameter: from the structured values the
// task gives, else from the task text where the intent's slots capture
// them (a captured value that holds a clause of its own, "editor and
// delete user bob", is a miss), else with one bounded model call (source matcher, made by the
// planner over the bus) whose values must appear in the task text.
package matcher
