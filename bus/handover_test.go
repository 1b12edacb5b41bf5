package bus_test

import (
	"fmt"
	"testing"

	"github.com/rote-agent/rote/bus"
)

// TestSurvivorsTakeTheDirectoryOver: two processes attached to a data
// directory's owner keep publishing while it exits; one of them takes the
// directory over, the other follows it there, no publish fails and
// nothing written before is lost. Then the new owner exits too.
func TestSurvivorsTakeTheDirectoryOver(t *testing.T) {
	dir := t.TempDir()
	c := ctx(t)
	owner, err := bus.Open(c, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var guests []*bus.Bus
	for range 2 {
		g, err := bus.Open(c, bus.Config{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		guests = append(guests, g)
	}
	publish := func(b *bus.Bus, run string, from, to int) {
		t.Helper()
		if from == 1 {
			if _, err := b.Runs().Publish(c, started(run)); err != nil {
				t.Fatalf("%s: %v", run, err)
			}
		}
		for i := from; i <= to; i++ {
			if _, err := b.Runs().Publish(c, call(run, uint64(i))); err != nil {
				t.Fatalf("%s call %d: %v", run, i, err)
			}
		}
	}
	publish(owner, "O", 1, 5)
	publish(guests[0], "A", 1, 5)
	publish(guests[1], "B", 1, 5)

	done := make(chan error, 2)
	for i, g := range guests {
		go func() {
			run := fmt.Sprintf("%c", 'A'+i)
			for n := 6; n <= 40; n++ {
				if _, err := g.Runs().Publish(c, call(run, uint64(n))); err != nil {
					done <- fmt.Errorf("%s call %d after the owner left: %w", run, n, err)
					return
				}
			}
			done <- nil
		}()
	}
	if err := owner.Close(); err != nil {
		t.Fatal(err)
	}
	for range guests {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range guests {
		for run, want := range map[string]int{"O": 6, "A": 41, "B": 41} {
			if envs, err := g.Runs().ReadRun(c, run); err != nil || len(envs) != want {
				t.Fatalf("after the handover, run %s: %d events, want %d (%v)", run, len(envs), want, err)
			}
		}
	}
	// A process that comes now attaches to the survivor that serves.
	late, err := bus.Open(c, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	if late.Server() != nil {
		t.Fatal("a third process started a server beside the survivor's")
	}
	publish(late, "L", 1, 1)
	// The survivor that serves leaves in turn: the other one takes over.
	for _, g := range guests {
		g.Close()
		if _, err := late.Runs().Publish(c, call("L", 2)); err != nil {
			t.Fatalf("after a second handover: %v", err)
		}
	}
	if envs, err := late.Runs().ReadRun(c, "A"); err != nil || len(envs) != 41 {
		t.Fatalf("after every first process left: run A has %d events (%v)", len(envs), err)
	}
}
