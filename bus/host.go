package bus

import (
	"os"
	"sync"
)

// Host names the machine this process runs on (in Kubernetes, its pod):
// what a browser's loopback DevTools endpoint is local to. Processes that
// share a network namespace share it.
var Host = sync.OnceValue(func() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "localhost"
})
