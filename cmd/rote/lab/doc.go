// Package lab is where the frozen suites meet the running system: a
// suite task as the planner's task (Task, the one place it is built),
// task requests that name a suite task (Expand), the sites the suites
// run on with their independent verifiers (Portal, WordPress), the
// offline scripted model (Offline), and a Lab that pairs a site with a
// node doing its tasks, for rote demo, rote bench and the end-to-end
// suites. rote is built without it by -tags nobench.
package lab
