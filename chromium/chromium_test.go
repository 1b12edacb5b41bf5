package chromium

import (
	"context"
	"testing"
	"time"
)

// TestLaunchAttachKill launches a browser, attaches to it by its
// address, and kills it: the attached one sees it gone.
func TestLaunchAttachKill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := Launch(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Alive() {
		t.Fatal("a launched browser is not alive")
	}
	a, err := Attach(p.WS())
	if err != nil {
		t.Fatal(err)
	}
	if !a.Alive() {
		t.Fatal("the attached browser does not answer")
	}
	a.Kill()
	if !p.Alive() {
		t.Fatal("killing an attached browser stopped it")
	}
	p.Kill()
	if p.Alive() || a.Alive() {
		t.Fatal("a killed browser still answers")
	}
	if _, err := Attach("http://127.0.0.1:1/"); err == nil {
		t.Fatal("attached to an address that is no DevTools WebSocket")
	}
}
