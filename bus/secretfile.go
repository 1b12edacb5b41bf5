package bus

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SecretFile returns the random secret kept, as hex, in the file at path
// (mode 0600), creating 32 random bytes there on first use. The file is
// written complete under a temporary name and linked into place, so two
// processes creating it at once agree on one secret and no reader sees
// half of it. A file that holds less than 16 bytes of hex is an error,
// and one another user owns or may read wraps ErrUnsafeDataDir.
func SecretFile(path string) ([]byte, error) {
	if raw, err := readPrivate(path); err == nil {
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
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(hex.EncodeToString(key) + "\n")
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, os.ErrExist) {
		return SecretFile(path)
	} else if err != nil {
		return nil, err
	}
	return key, nil
}
