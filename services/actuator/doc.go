// Package actuator acts on the world. It runs a pool of headless Chromium
// processes, pins each run to a browser context of its own, and performs
// the closed set of typed actions on it: settled first, resolved down a
// fail-closed ladder, and refused when the target's recorded contract
// changed.
//
// The Service claims runs on schema.SubjectOpenSession and then serves
// them on subjects of its own instance, so every action of a run reaches
// the browser that holds its session. It asks perception, over the bus,
// to observe the pages it holds. Playbooks are replayed by package
// services/replay, through these sessions.
//
// Terms the code uses:
//   - settled: no pending network request and a quiet DOM, waited for
//     before every action (settle.go); when the wait runs out the action
//     goes ahead and says what held the page.
//   - resolution ladder: a target is found by its stable id, then by exact
//     role and name, then by nearby text; never a guess between candidates
//     (resolve.go).
//   - twins: nodes that share a stable id's hash (id, id~2, ...), such as
//     two Save buttons; a target with twins on the page is ambiguous
//     unless what was recorded tells them apart.
//   - contract: what a control was when recorded (tag, input type, name
//     source); an action on a control whose contract changed is refused
//     (gate.go).
//   - kept capture: the page's nodes as captured after it last settled,
//     reused to resolve the next target while the page is unchanged
//     (seen.go).
//   - proof: after an action that may change what shows by CSS alone (a
//     fill moving the focus), the kept capture is used again only once the
//     page proves the target is still the only one of its kind.
package actuator
