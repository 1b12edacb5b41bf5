package schema

import "strings"

// SecretEnvPrefix names where a process finds secret values by name: the
// secret "password" is $ROTE_SECRET_PASSWORD in its own environment (in
// Kubernetes, from a Secret), never in a task message or a playbook.
const SecretEnvPrefix = "ROTE_SECRET_"

// secretKeyEnv is the key secret digests are made with, not a secret
// parameter's value.
const secretKeyEnv = SecretEnvPrefix + "KEY"

// SecretEnv is the environment variable that holds secret name.
func SecretEnv(name string) string {
	return SecretEnvPrefix + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name))
}

// SecretsFromEnv returns the secret values in environ (KEY=value
// entries, as os.Environ gives them) by lower-case name: $ROTE_SECRET_API_TOKEN
// is "api_token". The digest key, $ROTE_SECRET_KEY, is none of them.
func SecretsFromEnv(environ []string) map[string]string {
	out := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == secretKeyEnv || v == "" {
			continue
		}
		if name, ok := strings.CutPrefix(k, SecretEnvPrefix); ok && name != "" {
			out[strings.ToLower(name)] = v
		}
	}
	return out
}

// SecretEnviron is secrets as environment entries (SecretEnv), for a
// process that masks them (rote mcp browser).
func SecretEnviron(secrets map[string]string) []string {
	var out []string
	for name, v := range secrets {
		out = append(out, SecretEnv(name)+"="+v)
	}
	return out
}
