//go:build nobench

package main

// builtinSuites is none: this build leaves the suites out.
func builtinSuites() suiteSupport { return suiteSupport{} }
