package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1 // the command ran and failed
	ExitUsage   = 2 // the command line was wrong
)

// ExitError carries a process exit code other than 1.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Usagef is a usage error: the command line was wrong.
func Usagef(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Usage makes err a usage error.
func Usage(err error) error {
	return &ExitError{Code: ExitUsage, Err: err}
}

// ExitCode is the process exit code err ends with.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitFailure
}

// FlagErrors turns cobra's flag parsing errors into usage errors.
func FlagErrors(cmd *cobra.Command, err error) error {
	return Usagef("%v (see %s --help)", err, cmd.CommandPath())
}
