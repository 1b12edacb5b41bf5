package node

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rote-agent/rote/bus"
)

// secretKeyFile holds the key of secret digests, created on first use.
const secretKeyFile = "secret.key"

// SecretKey returns the key that secret digests are made with:
// $ROTE_SECRET_KEY (hex) when set, so several machines can share it, else
// 32 random bytes kept in the data directory (mode 0600), created once.
// The same key always gives the same digest for the same secret, which is
// what lets a playbook refer to a secret without storing it.
func SecretKey(dataDir string) ([]byte, error) {
	if key, err := EnvKey("ROTE_SECRET_KEY"); key != nil || err != nil {
		return key, err
	}
	if err := bus.PrivateDir(dataDir); err != nil {
		return nil, err
	}
	return bus.SecretFile(filepath.Join(dataDir, secretKeyFile))
}

// EnvKey returns the key in environment variable name, as hex of at
// least 16 bytes, or nil when it is not set.
func EnvKey(name string) ([]byte, error) {
	env := os.Getenv(name)
	if env == "" {
		return nil, nil
	}
	key, err := hex.DecodeString(strings.TrimSpace(env))
	if err != nil || len(key) < 16 {
		return nil, fmt.Errorf("%s: want at least 16 bytes as hex", name)
	}
	return key, nil
}
