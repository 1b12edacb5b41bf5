// Package e2e holds Rote's end-to-end suites: tests that build and run the
// real rote binary, and checks over the whole workspace such as the
// dependency layering. It has no code of its own beyond test helpers.
package e2e
