package main

import (
	"os"
	"strconv"
	"strings"
)

// envBytes is the byte count in environment variable name ("" is 0): a
// whole number, with an optional unit K, M, G or T (powers of 1024; KiB,
// MiB, GiB and TiB too).
func envBytes(name string) (int64, error) {
	raw := strings.TrimSpace(os.Getenv(name))
	if raw == "" {
		return 0, nil
	}
	upper := strings.ToUpper(raw)
	digits := strings.TrimRight(upper, "KMGTIB")
	unit := upper[len(digits):]
	s, ok := shift[strings.TrimSuffix(strings.TrimSuffix(unit, "IB"), "B")]
	ok = ok && unit != "IB"
	n, err := strconv.ParseInt(strings.TrimSpace(digits), 10, 64)
	if err != nil || !ok || n <= 0 || n > (1<<62)>>s {
		return 0, usageError("%s=%q: want a positive size in bytes, such as 8G or 500M", name, raw)
	}
	return n << s, nil
}

// shift is the power of two a unit of envBytes stands for.
var shift = map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}

// storeLimits sets a bus configuration's store bounds from
// $ROTE_RUNS_MAX_BYTES and $ROTE_BLOBS_MAX_BYTES.
func storeLimits(runs, blobs *int64) error {
	var err error
	if *runs, err = envBytes("ROTE_RUNS_MAX_BYTES"); err != nil {
		return err
	}
	if *blobs, err = envBytes("ROTE_BLOBS_MAX_BYTES"); err != nil {
		return err
	}
	return nil
}
