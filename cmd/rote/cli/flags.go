package cli

import (
	"os"
	"strings"

	"github.com/rote-agent/rote/schema"
	"github.com/spf13/cobra"
)

// Args wraps a cobra positional-argument check so that a wrong count is a
// usage error.
func Args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		err := check(cmd, a)
		switch {
		case err == nil:
			return nil
		case !cmd.HasParent():
			return Usagef("%v", err) // main prefixes "rote:" already
		}
		return Usagef("%s: %v", cmd.CommandPath(), err)
	}
}

// SplitAtDash splits a command line at --: the arguments before it, the
// MCP server's command after it.
func SplitAtDash(cmd *cobra.Command, a []string) (args, server []string) {
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		return a[:dash], a[dash:]
	}
	return a, nil
}

// OneBeforeDash splits a command line at --: one argument before it, the
// MCP server's command after it.
func OneBeforeDash(cmd *cobra.Command, a []string, usage string) ([]string, []string, error) {
	a, server := SplitAtDash(cmd, a)
	if len(a) != 1 {
		return nil, nil, Usagef("%s", usage)
	}
	return a, server, nil
}

// KeyValues parses name=value flags; a name may not repeat. A name
// alone takes its value from $ROTE_SECRET_NAME (schema.SecretEnv): a
// value on the command line is seen by every local user (ps,
// /proc/PID/cmdline), one in the environment only by its owner.
func KeyValues(flag string, kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		// A --secret given wrong may be the secret itself, typed without
		// its name: an error does not repeat it.
		secret := flag == "--secret"
		if k == "" {
			if secret {
				return nil, Usagef("%s: want name=value (what was given is not repeated, in case it is the secret)", flag)
			}
			return nil, Usagef("%s %q: want name=value", flag, kv)
		}
		if !ok {
			if v, ok = os.LookupEnv(schema.SecretEnv(k)); !ok || v == "" {
				if secret {
					return nil, Usagef("%s NAME without =value takes its value from $ROTE_SECRET_<NAME>, which is not set for the name given (not repeated here, in case it is the secret itself): give name=value, or set it", flag)
				}
				return nil, Usagef("%s %s: $%s is not set (give %s=value, or set it)", flag, k, schema.SecretEnv(k), k)
			}
		}
		if _, dup := out[k]; dup {
			return nil, Usagef("%s %s given twice", flag, k)
		}
		out[k] = v
	}
	return out, nil
}

// TaskValues parses a task's --param and --secret flags; a name may be
// one or the other, not both.
func TaskValues(params, secrets []string) (paramMap, secretMap map[string]string, err error) {
	if paramMap, err = KeyValues("--param", params); err != nil {
		return nil, nil, err
	}
	if secretMap, err = KeyValues("--secret", secrets); err != nil {
		return nil, nil, err
	}
	for k := range secretMap {
		if _, clash := paramMap[k]; clash {
			return nil, nil, Usagef("%s is given both as --param and --secret", k)
		}
	}
	return paramMap, secretMap, nil
}

// ParseExpects reads command-line assertions; a bad one is a usage error.
func ParseExpects(texts []string) ([]schema.Expect, error) {
	var out []schema.Expect
	for _, t := range texts {
		e, err := schema.ParseExpectText(t)
		if err != nil {
			return nil, Usage(err)
		}
		out = append(out, e)
	}
	return out, nil
}
