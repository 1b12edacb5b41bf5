package node

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// secretKeyFile holds the key of secret digests, created on first use.
const secretKeyFile = "secret.key"

// SecretKey returns the key that secret digests are made with:
// $ROTE_SECRET_KEY (hex) when set, so several machines can share it, else
// 32 random bytes kept in the data directory (mode 0600), created once.
// The same key always gives the same digest for the same secret, which is
// what lets a playbook refer to a secret without storing it.
func SecretKey(dataDir string) ([]byte, error) {
	if env := os.Getenv("ROTE_SECRET_KEY"); env != "" {
		key, err := hex.DecodeString(strings.TrimSpace(env))
		if err != nil || len(key) < 16 {
			return nil, errors.New("ROTE_SECRET_KEY: want at least 16 bytes as hex")
		}
		return key, nil
	}
	path := filepath.Join(dataDir, secretKeyFile)
	if raw, err := os.ReadFile(path); err == nil {
		key, err := hex.DecodeString(strings.TrimSpace(string(raw)))
		if err != nil || len(key) < 16 {
			return nil, fmt.Errorf("%s is damaged: want at least 16 bytes as hex", path)
		}
		return key, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	// Write a complete file under a temporary name, then link it into
	// place: the link fails if another process got there first, and no
	// reader ever sees a half-written key.
	tmp, err := os.CreateTemp(dataDir, secretKeyFile+".*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(hex.EncodeToString(key) + "\n")
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, os.ErrExist) {
		return SecretKey(dataDir)
	} else if err != nil {
		return nil, err
	}
	return key, nil
}
