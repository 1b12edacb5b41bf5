package node

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rote-agent/rote/bus"
)

// EnvBytes is the byte count in environment variable name ("" is 0): a
// whole number, with an optional unit K, M, G or T (powers of 1024; KiB,
// MiB, GiB and TiB too).
func EnvBytes(name string) (int64, error) {
	raw := strings.TrimSpace(os.Getenv(name))
	if raw == "" {
		return 0, nil
	}
	upper := strings.ToUpper(raw)
	digits := strings.TrimRight(upper, "KMGTIB")
	unit := upper[len(digits):]
	s, ok := units[unit]
	n, err := strconv.ParseInt(strings.TrimSpace(digits), 10, 64)
	if err != nil || !ok || n <= 0 || n > (1<<62)>>s {
		return 0, fmt.Errorf("%s=%q: want a positive size in bytes, such as 8G or 500M", name, raw)
	}
	return n << s, nil
}

// units is the power of two each unit EnvBytes takes stands for.
var units = map[string]uint{"": 0, "B": 0,
	"K": 10, "KB": 10, "KIB": 10, "M": 20, "MB": 20, "MIB": 20,
	"G": 30, "GB": 30, "GIB": 30, "T": 40, "TB": 40, "TIB": 40}

// minStoreBytes is the least a store may be given: room for sixteen of
// the largest events (bus.MaxEventBytes). A smaller one would refuse the
// first run that kept a large result.
const minStoreBytes = 16 * bus.MaxEventBytes

// StoreLimits sets a bus configuration's store bounds from
// $ROTE_RUNS_MAX_BYTES and $ROTE_BLOBS_MAX_BYTES.
func StoreLimits(runs, blobs *int64) error {
	for name, to := range map[string]*int64{"ROTE_RUNS_MAX_BYTES": runs, "ROTE_BLOBS_MAX_BYTES": blobs} {
		n, err := EnvBytes(name)
		if err != nil {
			return err
		}
		if n != 0 && n < minStoreBytes {
			return fmt.Errorf("%s=%s: want at least %dM, room for sixteen of the largest events", name, os.Getenv(name), minStoreBytes>>20)
		}
		*to = n
	}
	return nil
}
