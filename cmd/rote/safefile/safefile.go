// Package safefile writes the files rote's commands are asked to write
// (an export, a distilled playbook) without following a link planted at
// the path: the data goes to a new file beside it, which is then renamed
// over the path. A symlink there is replaced, never written through.
package safefile

import (
	"os"
	"path/filepath"
)

// Write writes data to path with perm as a new file renamed into place.
func Write(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
