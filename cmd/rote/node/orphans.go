package node

import (
	"context"
	"log/slog"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/runlog"
	"github.com/rote-agent/rote/services/recorder"
)

// CloseOrphans finishes, as aborted, the runs that processes which died
// before this one took over the data directory left open: recorded
// sessions (with what their spools kept), then every other run that
// started before and that no live process holds (its recorder, or the
// process that opened it, which may have survived the owner it took the
// directory over from).
func CloseOrphans(ctx context.Context, b *bus.Bus, dataDir string, opened time.Time, log *slog.Logger) {
	aborted, err := recorder.Recover(ctx, b.Runs(), dataDir, opened)
	if err == nil {
		var more []string
		more, err = runlog.AbortOrphans(ctx, b.Runs(), opened, func(runID string) bool {
			return recorder.Alive(dataDir, runID) || bus.RunAlive(dataDir, runID)
		})
		aborted = append(aborted, more...)
	}
	if err != nil {
		log.Warn("could not close the runs of dead processes", "err", err)
	}
	if len(aborted) > 0 {
		log.Info("marked the runs of dead processes aborted", "runs", aborted)
	}
}
