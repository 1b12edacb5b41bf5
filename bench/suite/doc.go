// Package suite is the frozen browser task suite over the fixture portal:
// task specs (B1-B6) with their parameters per repetition and their
// independent verifiers, and the oracles that answer for the offline
// scripted model by reading the observation text a request carries.
//
// The oracles read the planner's prompt layout the way a model reads a
// prompt: they look for the task, the parameters, the steps so far and
// the page in the text, and find every element id they answer with in
// the page. Nothing about the portal reaches them another way.
package suite
