// Package lab is where the frozen suites (bench/) meet the running
// system, and what rote demo, rote bench and the end-to-end suites run
// on them: a suite task as the planner's task (Task, the one place it is
// built), task requests that name a suite task (Expand), the sites the
// suites run on with their independent verifiers (Portal, WordPress),
// the offline scripted model (Offline), a Lab that pairs a site with a
// node doing its tasks, the demo (Demo), the cold-against-warm benchmark
// (Bench) and the side by side with hand-written programs
// (RunSideBySide). bench/ holds the suites, their scoring and reports;
// this package runs them. rote is built without it by -tags nobench.
package lab
