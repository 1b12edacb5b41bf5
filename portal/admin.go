package portal

import (
	"encoding/json"
	"net/http"
	"time"
)

// serveState serves GET /__state: the State as JSON. No sign-in needed.
func (p *Portal) serveState(w http.ResponseWriter, _ *http.Request) {
	writeStateJSON(w, p.st)
}

// serveReset serves POST /__reset: back to the seed, then the fresh State
// as JSON. No sign-in needed.
func (p *Portal) serveReset(w http.ResponseWriter, _ *http.Request) {
	p.resetLocked()
	writeStateJSON(w, p.st)
}

// writeStateJSON writes st as indented JSON.
func writeStateJSON(w http.ResponseWriter, st State) {
	body, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(append(body, '\n'))
}

// pingDelay is how long GET /__ping takes: the latency of the data
// request after which the remount variant renders its page again.
const pingDelay = 300 * time.Millisecond

// ping serves GET /__ping: 204 after pingDelay, outside the portal's lock
// and without sign-in.
func ping(w http.ResponseWriter, r *http.Request) {
	select {
	case <-time.After(pingDelay):
	case <-r.Context().Done():
	}
	w.WriteHeader(http.StatusNoContent)
}
