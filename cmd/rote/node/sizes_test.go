package node

import "testing"

func TestEnvBytes(t *testing.T) {
	for raw, want := range map[string]int64{"": 0, "1024": 1024, "8G": 8 << 30, "500M": 500 << 20, "2GiB": 2 << 30, "3t": 3 << 40, "16k": 16 << 10, "2gib": 2 << 30, "7 MB": 7 << 20} {
		t.Setenv("ROTE_TEST_BYTES", raw)
		if got, err := EnvBytes("ROTE_TEST_BYTES"); err != nil || got != want {
			t.Errorf("%q: %d (%v), want %d", raw, got, err, want)
		}
	}
	for _, raw := range []string{"-1", "0", "8X", "G", "1.5G", "99999999999T", "5IB", "1BB"} {
		t.Setenv("ROTE_TEST_BYTES", raw)
		if got, err := EnvBytes("ROTE_TEST_BYTES"); err == nil {
			t.Errorf("%q: %d, want an error", raw, got)
		}
	}
}

func TestStoreLimits(t *testing.T) {
	t.Setenv("ROTE_BLOBS_MAX_BYTES", "")
	for raw, ok := range map[string]bool{"1": false, "15M": false, "16M": true, "64G": true, "": true} {
		t.Setenv("ROTE_RUNS_MAX_BYTES", raw)
		var runs, blobs int64
		if err := StoreLimits(&runs, &blobs); (err == nil) != ok {
			t.Errorf("ROTE_RUNS_MAX_BYTES=%q: %v", raw, err)
		}
	}
}
