package portal

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestPingTakesItsTime: /__ping answers 204 after pingDelay, signed in or
// not; it is the data request the remount variant renders again after.
func TestPingTakesItsTime(t *testing.T) {
	p, err := New(Config{Variant: "remount"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	start := time.Now()
	resp, err := http.Get(srv.URL + "/__ping")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || time.Since(start) < pingDelay {
		t.Fatalf("ping: %d after %v", resp.StatusCode, time.Since(start))
	}
}
