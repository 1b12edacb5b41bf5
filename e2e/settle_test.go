package e2e

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// TestSettlednessWaits: an observation waits for a slow XHR, for a burst
// of DOM inserts, for a request a timer starts after a click, and for a
// debounced handler after a fill, before it looks.
func TestSettlednessWaits(t *testing.T) {
	t.Parallel()
	b := planes(t)
	web := newSite(t, map[string]string{
		"/xhr": `<main><h1>Loading</h1><p id="out">pending</p><script>
			fetch('/slow').then(r => r.text()).then(t => { document.getElementById('out').textContent = t; });
		</script></main>`,
		"/dom": `<main><h1>Growing</h1><ul id="l"></ul><script>
			let n = 0; const tick = () => { const li = document.createElement('li'); li.textContent = 'item ' + (++n);
			document.getElementById('l').appendChild(li); if (n < 8) setTimeout(tick, 100); else document.querySelector('h1').textContent = 'Grown'; };
			setTimeout(tick, 100);
		</script></main>`,
		"/timer": `<main><h1>Later</h1><button id="b">Load later</button><p id="out">pending</p><script>
			document.getElementById('b').addEventListener('click', () => setTimeout(() =>
				fetch('/slow').then(r => r.text()).then(t => { document.getElementById('out').textContent = t; }), 400));
		</script></main>`,
		"/debounce": `<main><h1>Search</h1><label>Query <input id="q"></label><p id="out">nothing yet</p><script>
			let pending; document.getElementById('q').addEventListener('input', e => { clearTimeout(pending);
			pending = setTimeout(() => { document.getElementById('out').textContent = 'Searched for ' + e.target.value; }, 300); });
		</script></main>`,
	})
	s := session(t, b, web.URL+"/xhr")
	rep := observe(t, s)
	if !rep.Settled || !strings.Contains(rep.Observation.Text, "Loaded from the server") {
		t.Fatalf("observed before the XHR finished (waited %v, settled %v): %q", rep.SettleWait, rep.Settled, rep.Observation.Text)
	}
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/dom"})
	rep = observe(t, s)
	if !rep.Settled || !strings.Contains(rep.Observation.Text, "Grown") || !strings.Contains(rep.Observation.Text, "item 8") {
		t.Fatalf("observed before the DOM stopped changing (waited %v): %q", rep.SettleWait, rep.Observation.Text)
	}
	t.Logf("settle waits: the DOM burst took %v", rep.SettleWait)

	// The click returns at once; the request it causes starts 400 ms
	// later, from a timer: the page is not settled until it answered.
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/timer"})
	act(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Load later"}})
	rep = observe(t, s)
	if !rep.Settled || !strings.Contains(rep.Observation.Text, "Loaded from the server") {
		t.Fatalf("observed before the timer's request finished (waited %v, settled %v): %q", rep.SettleWait, rep.Settled, rep.Observation.Text)
	}
	// A fill sets a debounce timer: the result shows 300 ms after it.
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/debounce"})
	act(t, s, schema.Action{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: "Query"}, Value: "chairs"})
	rep = observe(t, s)
	if !rep.Settled || !strings.Contains(rep.Observation.Text, "Searched for chairs") {
		t.Fatalf("observed before the debounced handler ran (waited %v, settled %v): %q", rep.SettleWait, rep.Settled, rep.Observation.Text)
	}
}

// TestSettleFollowsScheduledWork: what a page schedules after an action
// holds the look that follows it: a redirect a timer sets 1.2 s after a
// save, a meta refresh, an animation-frame loop, an interval's third tick,
// a string timer, an idle callback, a worker's answer; and neither a
// response whose body the page never reads nor a worker's own script
// holds it to the cap.
func TestSettleFollowsScheduledWork(t *testing.T) {
	t.Parallel()
	b := planes(t)
	button := func(handler string) string {
		return `<main><h1>Work</h1><button id="b">Go</button><p id="out">Total: 0.00</p><script>
			const show = () => { document.getElementById('out').textContent = 'Total: 123.45'; };
			document.getElementById('b').addEventListener('click', () => { ` + handler + ` });
		</script></main>`
	}
	web := newSite(t, map[string]string{
		"/survey1":   button(`fetch('/api', {method: 'POST'}).then(r => r.text()).then(() => { show(); setTimeout(() => { location.href = '/survey2'; }, 1200); });`),
		"/survey2":   `<main><h1>Question 2 of 2</h1></main>`,
		"/refresh":   `<html><head><meta http-equiv="refresh" content="1.5;url=/survey2"></head><body><main><h1>Moving</h1></main></body></html>`,
		"/frames":    button(`let n = 0; const f = () => { if (++n === 8) show(); else requestAnimationFrame(f); }; requestAnimationFrame(f);`),
		"/ticks":     button(`let n = 0; const id = setInterval(() => { if (++n === 3) { show(); clearInterval(id); } }, 100);`),
		"/string":    button(`window.show = show; setTimeout('show()', 300);`),
		"/unread":    button(`fetch('/api', {method: 'POST'}).then(() => show());`),
		"/idle":      button(`requestIdleCallback(show);`),
		"/worker":    button(`const w = new Worker('/worker.js'); w.onmessage = show; w.postMessage('go');`),
		"/worker.js": `onmessage = () => setTimeout(() => postMessage('done'), 100);`,
	})
	s := session(t, b, web.URL+"/survey1")
	act(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Go"}})
	if rep := observe(t, s); !strings.HasSuffix(rep.Observation.URL, "/survey2") {
		t.Fatalf("looked before the redirect a timer set after the save (waited %v): %s %q", rep.SettleWait, rep.Observation.URL, rep.Observation.Text)
	}
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: "/refresh"})
	if rep := observe(t, s); !strings.HasSuffix(rep.Observation.URL, "/survey2") {
		t.Fatalf("looked before the meta refresh (waited %v): %s", rep.SettleWait, rep.Observation.URL)
	}
	for _, page := range []string{"/frames", "/ticks", "/string", "/unread", "/idle", "/worker"} {
		clickGoAndLook(t, s, page)
	}
}

// clickGoAndLook opens page, lets its own start pass, clicks its Go
// button and looks once: the look must show the result the click makes
// the page compute ("Total: 123.45") and count the page as settled.
func clickGoAndLook(t *testing.T, s *bus.BrowserSession, page string) {
	t.Helper()
	act(t, s, schema.Action{Kind: schema.ActNavigate, URL: page})
	observe(t, s) // the page's own start (a socket opening) is over
	act(t, s, schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Go"}})
	rep := observe(t, s)
	if !strings.Contains(rep.Observation.Text, "Total: 123.45") {
		t.Errorf("%s: looked before the page showed its result (waited %v): %q", page, rep.SettleWait, rep.Observation.Text)
	}
	if !rep.Settled {
		t.Errorf("%s: the page never counted as settled (waited %v)", page, rep.SettleWait)
	}
}

// TestSettleFollowsMessagesAndStreams: what answers an action through a
// channel other than a timer or a request holds the look that follows it
// until it came: a WebSocket opened by the click or asked on one opened
// before, an EventSource's first message, a MessageChannel or
// window.postMessage loop yielding like a scheduler, AbortSignal.timeout,
// a timer taken from a frame a script made, a timer set from within a
// timer, a worker answering from a timer or a fetch of its own, and one
// answering through a BroadcastChannel; an acknowledgement the page
// shows nothing of before the result (a worker's, a socket's), a
// one-shot chain of four different steps, a delay the browser reads
// modulo 2^32, and a body that arrives 1.5 s after its head. An endless
// message loop, a socket that pushes on its own and one the page sends
// heartbeats on that are never answered do not hold a look to the cap.
func TestSettleFollowsMessagesAndStreams(t *testing.T) {
	t.Parallel()
	b := planes(t)
	button := func(script string) string {
		return `<main><h1>Work</h1><button id="b">Go</button><p id="out">Total: 0.00</p><script>
			const show = () => { document.getElementById('out').textContent = 'Total: 123.45'; };
			` + script + `
		</script></main>`
	}
	onClick := func(handler string) string {
		return button(`document.getElementById('b').addEventListener('click', () => { ` + handler + ` });`)
	}
	worker := func(body string) string {
		return `new Worker(URL.createObjectURL(new Blob([` + "`" + body + "`" + `], {type: 'text/javascript'})))`
	}
	web := newStreamingSite(t, map[string]string{
		"/socket-open": onClick(`const s = new WebSocket('ws://' + location.host + '/ws?greet=1&ms=300'); s.onmessage = () => { show(); s.close(); };`),
		"/socket-ask": button(`const s = new WebSocket('ws://' + location.host + '/ws?ms=300'); s.onmessage = show;
			document.getElementById('b').addEventListener('click', () => s.send('go'));`),
		"/events": onClick(`const e = new EventSource('/sse?ms=300'); e.onmessage = () => { show(); e.close(); };`),
		"/channel": onClick(`const t0 = performance.now(), ch = new MessageChannel();
			ch.port1.onmessage = () => { const e = performance.now() + 2; while (performance.now() < e) {} if (performance.now() - t0 >= 250) show(); else ch.port2.postMessage(0); };
			ch.port2.postMessage(0);`),
		"/postmessage": onClick(`const t0 = performance.now();
			const h = ev => { if (ev.data !== 'tick') return; if (performance.now() - t0 >= 250) { removeEventListener('message', h); show(); } else postMessage('tick', '*'); };
			addEventListener('message', h); postMessage('tick', '*');`),
		"/abort":        onClick(`AbortSignal.timeout(300).addEventListener('abort', show);`),
		"/frame":        onClick(`const f = document.createElement('iframe'); f.style.display = 'none'; document.body.appendChild(f); f.contentWindow.setTimeout(show, 300);`),
		"/nested":       onClick(`setTimeout(() => setTimeout(show, 1200), 0);`),
		"/worker":       onClick(worker(`setTimeout(() => postMessage(1), 300)`) + `.onmessage = show;`),
		"/worker-fetch": onClick(worker(`fetch('`+"${location.origin}"+`/slow').then(r => r.text()).then(() => postMessage(1))`) + `.onmessage = show;`),
		"/broadcast": onClick(`const bc = new BroadcastChannel('answers'); bc.onmessage = () => { show(); bc.close(); };
			` + worker(`setTimeout(() => new BroadcastChannel('answers').postMessage(1), 300)`) + `;`),
		// An answer the page shows nothing of comes first: the result later.
		"/worker-ack": button(`const w = ` + worker(`onmessage = () => { postMessage('working'); setTimeout(() => postMessage('done'), 600); }`) + `;
			w.onmessage = e => { if (e.data === 'done') show(); };
			document.getElementById('b').addEventListener('click', () => w.postMessage('go'));`),
		"/socket-ack": button(`const s = new WebSocket('ws://' + location.host + '/ws?ack=1&ms=600'); s.onmessage = e => { if (e.data !== 'ack') show(); };
			document.getElementById('b').addEventListener('click', () => s.send('go'));`),
		// A one-shot chain of different steps, four deep, then 1.2 s.
		"/chain": onClick(`setTimeout(() => requestAnimationFrame(() => setTimeout(() => setTimeout(show, 1200), 0)), 0);`),
		// The browser reads a delay as a 32-bit integer: this is 300 ms.
		"/wrapped-delay": onClick(`setTimeout(show, 2 ** 32 + 300);`),
		// The response's head comes at once, its body 1.5 s later.
		"/slow-body": onClick(`fetch('/slowbody').then(r => r.text()).then(show);`),
		// Neither of these ever goes quiet by itself.
		"/endless-channel": onClick(`const ch = new MessageChannel(); ch.port1.onmessage = () => ch.port2.postMessage(0); ch.port2.postMessage(0); show();`),
		"/chatty-socket": button(`const s = new WebSocket('ws://' + location.host + '/ws?push=50');
			document.getElementById('b').addEventListener('click', show);`),
		"/heartbeat": button(`const s = new WebSocket('ws://' + location.host + '/ws?mute=1');
			s.onopen = () => setInterval(() => s.send('beat'), 200);
			document.getElementById('b').addEventListener('click', show);`),
	})
	s := session(t, b, web.URL+"/socket-open")
	for _, page := range []string{"/socket-open", "/socket-ask", "/events", "/channel", "/postmessage", "/abort", "/frame", "/nested",
		"/worker", "/worker-fetch", "/broadcast", "/worker-ack", "/socket-ack", "/chain", "/wrapped-delay", "/slow-body",
		"/endless-channel", "/chatty-socket", "/heartbeat"} {
		clickGoAndLook(t, s, page)
	}
}

// TestSettleSaysWhatHeldThePage: a look that gave up at the settle's cap
// says what held the page: the request it awaited, or its DOM. What a
// document had in flight when the page left it does not hold the next,
// and a Refresh header's move is waited for.
func TestSettleSaysWhatHeldThePage(t *testing.T) {
	t.Parallel()
	b := planes(t)
	web := newStreamingSite(t, map[string]string{
		"/poll":  `<main><h1>Waiting</h1><script>fetch('/hang');</script></main>`,
		"/clock": `<main><h1>Clock</h1><p id="c"></p><script>(function tick() { document.getElementById('c').textContent = Math.random(); requestAnimationFrame(tick); })();</script></main>`,
		"/leave": `<main><h1>Leaving</h1><script>fetch('/hang'); setTimeout(() => { location.href = '/left'; }, 100);</script></main>`,
		"/left":  `<main><h1>Left</h1></main>`,
	})
	// A Refresh header moves the page on 1 s after its load: the look
	// waits for it.
	if rep := observe(t, session(t, b, web.URL+"/refreshed")); !strings.HasSuffix(rep.Observation.URL, "/left") {
		t.Errorf("looked before the Refresh header's move (waited %v): %s", rep.SettleWait, rep.Observation.URL)
	}
	for page, want := range map[string]string{"/poll": "awaiting GET " + web.URL + "/hang", "/clock": "its DOM still changing", "/leave": ""} {
		t.Run(page, func(t *testing.T) {
			t.Parallel()
			rep := observe(t, session(t, b, web.URL+page))
			if page == "/clock" && rep.Settled {
				// A renderer starved of the CPU skips frames: the clock
				// may stand still for 30 ms.
				t.Logf("the clock stood still long enough to settle (waited %v)", rep.SettleWait)
				return
			}
			if rep.Settled != (want == "") || rep.Observation.Stats.HeldBy != want {
				t.Errorf("settled %v, held by %q, want %q", rep.Settled, rep.Observation.Stats.HeldBy, want)
			}
		})
	}
}

// newStreamingSite is newSite with a WebSocket at /ws, an EventSource at
// /sse and a request that never answers at /hang besides: the socket,
// after the handshake, says hello after ms (?greet=1), answers each
// message after ms (none with ?mute=1; with ?ack=1 it acknowledges each
// at once first), and pushes a message every push ms (?push=N) on its
// own; the event source sends its first message after ms; /slowbody
// sends its head at once and the end of its body 1.5 s later; /refreshed
// has a Refresh header that moves it to /left after 1 s.
func newStreamingSite(t testing.TB, pages map[string]string) *httptest.Server {
	plain := newSite(t, pages)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ms := func(name string) time.Duration {
			n, _ := strconv.Atoi(r.URL.Query().Get(name))
			return time.Duration(n) * time.Millisecond
		}
		switch r.URL.Path {
		case "/ws":
			serveSocket(w, r, r.URL.Query(), ms("ms"), ms("push"))
		case "/hang":
			<-r.Context().Done()
		case "/refreshed":
			w.Header().Set("Refresh", "1; url=/left")
			io.WriteString(w, "<main><h1>Moving on</h1></main>")
		case "/slowbody":
			w.Header().Set("Content-Length", "11")
			io.WriteString(w, "Total")
			w.(http.Flusher).Flush()
			time.Sleep(1500 * time.Millisecond)
			io.WriteString(w, " ready")
		case "/sse":
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			select {
			case <-time.After(ms("ms")):
			case <-r.Context().Done():
				return
			}
			io.WriteString(w, "data: ready\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			plain.Config.Handler.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// serveSocket is a WebSocket server of the few frames the tests need:
// short unfragmented text frames.
func serveSocket(w http.ResponseWriter, r *http.Request, q url.Values, delay, push time.Duration) {
	accept := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	conn, rw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	fmt.Fprintf(rw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n", base64.StdEncoding.EncodeToString(accept[:]))
	rw.Flush()
	out, done := make(chan string), make(chan struct{})
	defer close(done)
	send := func(text string) {
		select {
		case out <- text:
		case <-done:
		}
	}
	go func() {
		for {
			select {
			case text := <-out:
				if _, err := conn.Write(append([]byte{0x81, byte(len(text))}, text...)); err != nil {
					return
				}
			case <-done:
				return
			}
		}
	}()
	later := func(text string) { time.AfterFunc(delay, func() { send(text) }) }
	if q.Get("greet") == "1" {
		later("hello")
	}
	if push > 0 {
		go func() {
			tick := time.NewTicker(push)
			defer tick.Stop()
			for {
				select {
				case <-tick.C:
					send("tick")
				case <-done:
					return
				}
			}
		}()
	}
	for {
		text, err := readFrame(rw.Reader)
		if err != nil {
			return
		}
		if q.Get("ack") == "1" {
			send("ack")
		}
		if q.Get("mute") != "1" {
			later("echo " + text)
		}
	}
}

// readFrame reads one masked client frame's payload.
func readFrame(r *bufio.Reader) (string, error) {
	var head [2]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return "", err
	}
	if head[0]&0x0f == 0x8 {
		return "", io.EOF // close
	}
	n := uint64(head[1] & 0x7f)
	switch n {
	case 126:
		var ext [2]byte
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return "", err
		}
		n = uint64(binary.BigEndian.Uint16(ext[:]))
	case 127:
		return "", fmt.Errorf("frame too long for a test")
	}
	var mask [4]byte
	if _, err := io.ReadFull(r, mask[:]); err != nil {
		return "", err
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return "", err
	}
	for i := range payload {
		payload[i] ^= mask[i%4]
	}
	return string(payload), nil
}
