package cli

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// IsPlaybookFile tells a playbook file from a stored playbook's name: it
// exists, or is named like YAML.
func IsPlaybookFile(ref string) bool {
	_, err := os.Stat(ref)
	return err == nil || strings.HasSuffix(ref, ".yaml") || strings.HasSuffix(ref, ".yml")
}

// LoadPlaybook reads a playbook file, or finds a stored playbook by name.
// It returns the stored version, 0 for a file.
func LoadPlaybook(ctx context.Context, b *bus.Bus, ref, fingerprint string, version uint64) (*schema.Playbook, uint64, error) {
	if IsPlaybookFile(ref) {
		p, err := ReadPlaybookFile(ref)
		return p, 0, err
	}
	fp, err := findPlaybook(ctx, b, ref, fingerprint)
	if err != nil {
		return nil, 0, err
	}
	e, err := b.Playbooks().Get(ctx, fp, ref, version)
	if err != nil {
		return nil, 0, err
	}
	p, err := e.Decode()
	return p, e.Stored.Version, err
}

// findPlaybook resolves a name (and an optional fingerprint) to the
// stored playbook's key.
func findPlaybook(ctx context.Context, b *bus.Bus, name, fingerprint string) (string, error) {
	if fingerprint != "" {
		return fingerprint, nil
	}
	e, err := b.Playbooks().Find(ctx, name)
	if err != nil {
		return "", err
	}
	return e.Fingerprint, nil
}

// StoredPlaybook opens the bus and finds the fingerprint of the stored
// playbook called name.
func (a *App) StoredPlaybook(ctx context.Context, name, fingerprint string) (*bus.Bus, string, error) {
	b, err := a.Bus(ctx)
	if err != nil {
		return nil, "", err
	}
	fp, err := findPlaybook(ctx, b, name, fingerprint)
	return b, fp, err
}

// ReadPlaybookFile reads and validates a playbook file; a playbook that
// does not validate is a usage error listing every problem with its line.
func ReadPlaybookFile(path string) (*schema.Playbook, error) {
	// Opened without blocking and held to a regular file: a FIFO or a
	// device would block the read, past any signal.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, Usagef("%s is not a regular file (%s): a playbook is read from a file", path, st.Mode().Type())
	}
	p, err := schema.ReadPlaybook(f)
	var verr *schema.ValidationError
	if errors.As(err, &verr) {
		return nil, Usagef("%s: %s", path, strings.TrimPrefix(verr.Error(), "invalid playbook "))
	}
	return p, err
}
