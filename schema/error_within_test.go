package schema

import (
	"fmt"
	"strings"
	"testing"
)

// TestWithinKeepsAWrappedCode: context put in front of an error keeps
// the code of an *Error it wraps, and its words.
func TestWithinKeepsAWrappedCode(t *testing.T) {
	err := within("playbook p", fmt.Errorf("step 2: %w", Errorf(CodeTooLarge, "too big")))
	if e := AsError(err); e.Code != CodeTooLarge || !strings.Contains(e.Message, "playbook p: step 2") || !strings.Contains(e.Message, "too big") {
		t.Fatalf("got %v", err)
	}
	if e := AsError(within("x", fmt.Errorf("plain"))); e.Code != CodeInvalid {
		t.Fatalf("a plain error: %v", e)
	}
}
