// The page's side of the settle (settle.go). It runs in every document
// the page loads, before the page's own scripts, and in every same-origin
// frame a script makes without loading a document (an about:blank frame,
// the first time the page reaches into it). It records when the DOM last
// changed (shadow roots too) and follows the work the page schedules,
// with when each is due:
//   - timers (setTimeout, setInterval, string callbacks too, delays read
//     as the browser reads them), animation frames, idle callbacks (given
//     a deadline: the page's own, else 1 s), scheduler.postTask,
//     AbortSignal.timeout, Atomics.waitAsync's timeout, a meta refresh,
//     finite Web Animations, audio and video playing to their end;
//   - a message posted on a MessageChannel or to the window itself, until
//     it is delivered (what a scheduler such as React's yields through);
//   - a dedicated worker, a WebSocket and an EventSource, from their start
//     and from each message the page sends them, until they answer (a
//     message, an error, a close; for a worker also a BroadcastChannel
//     message reaching this document); open work like this counts for the
//     whole horizon, not just until it is due.
// Each piece of work remembers the chain of work it was scheduled from
// (the callbacks, ports and sockets it went through). Work that meets
// itself again in its chain repeats (a clock, a poll, an animation-frame
// or message loop, an interval's ticks) and counts within the repeat
// horizon only; a one-shot chain of different steps (a timer set from a
// setTimeout(0) from an animation frame) counts for the whole horizon.
// Open work started before the document's load (a worker or a socket the
// page opens as it loads) counts within the repeat horizon too.
//
// __roteSettle(quiet, since, base, horizon, repeat, capMs) resolves once
// the document is complete, no followed work of this window or of its
// same-origin frames is due by base (the later of the caller's last
// action and the load) plus the horizon, and neither the DOM nor since
// (the caller's last known change) is more recent than quiet ms; or
// after capMs. It first lets the page run what it queued. Its own waits
// use the page's original setTimeout and are not followed, and its clock
// is the one the page had before its scripts ran.
(() => {
  // A window keeps its watch when its first, empty document is replaced
  // by a same-origin one: the new document is watched again.
  if (window.__roteWatched === document) return;
  const clock = Date.now.bind(Date);
  const deepest = 16; // a chain this long counts as repeating
  // A timer's delay as the browser reads it: a 32-bit integer, 0 if not
  // positive (setTimeout(fn, 2 ** 32 + 600) runs after 600 ms).
  const delayOf = (d) => { const n = Number(d) | 0; return n > 0 ? n : 0; };

  const install = (w) => {
    const wait = w.setTimeout.bind(w);
    const pending = new Map(); // key -> {due, open, source, chain, repeats}
    let seq = 0, running = null; // the followed work running now
    // follow starts following work that runs source (a callback, a port,
    // a socket) after delay ms; open work has no due time and counts
    // until it ends or the horizon passes.
    const follow = (delay, open, source) => {
      const key = ++seq, from = running;
      const chain = from ? from.chain.concat([from.source]) : [];
      pending.set(key, {due: clock() + delayOf(delay), open: !!open, source, chain,
        repeats: !!from && (from.repeats || chain.includes(source) || chain.length >= deepest)});
      return key;
    };
    // call runs fn as the followed work key (ended unless keep), so that
    // what it schedules continues that work's chain.
    const call = (key, fn, self, args, keep) => {
      const work = pending.get(key);
      if (!keep) pending.delete(key);
      const outer = running;
      running = work || outer;
      try {
        return typeof fn === 'function' ? fn.apply(self, args) : (0, w.eval)(String(fn));
      } finally {
        running = outer;
      }
    };

    const wrapTimer = (setName, clearName, delayAt, repeat) => {
      const set = w[setName], cancel = w[clearName], keys = new Map();
      if (typeof set !== 'function') return;
      w[setName] = function (fn, ...rest) {
        const delay = delayAt(rest);
        const key = follow(delay, false, fn);
        let id;
        id = set.call(w, function () {
          const work = pending.get(key);
          if (!repeat) keys.delete(id);
          const r = call(key, fn, this, arguments, repeat);
          // An interval's next tick repeats it.
          if (repeat && work && pending.has(key)) pending.set(key, Object.assign({}, work, {due: clock() + delayOf(delay), repeats: true}));
          return r;
        }, ...rest);
        keys.set(id, key);
        return id;
      };
      if (typeof cancel === 'function') {
        w[clearName] = function (id) {
          pending.delete(keys.get(id));
          keys.delete(id);
          return cancel.call(w, id);
        };
      }
    };
    wrapTimer('setTimeout', 'clearTimeout', r => r[0], false);
    wrapTimer('setInterval', 'clearInterval', r => r[0], true);
    wrapTimer('requestAnimationFrame', 'cancelAnimationFrame', () => 16, false);
    // An idle callback runs when the page has idle time, which a busy
    // machine may not give it for long: it is given a deadline (the
    // page's own, else 1 s) and is due by then.
    const idle = w.requestIdleCallback;
    if (typeof idle === 'function') {
      w.requestIdleCallback = function (fn, opts) {
        return idle.call(w, fn, Object.assign({}, opts, {timeout: (opts && opts.timeout) || 1000}));
      };
    }
    wrapTimer('requestIdleCallback', 'cancelIdleCallback', r => (r[0] && r[0].timeout) || 1000, false);
    if (w.scheduler && typeof w.scheduler.postTask === 'function') {
      const post = w.scheduler.postTask.bind(w.scheduler);
      w.scheduler.postTask = (fn, opts) => {
        const key = follow(opts && opts.delay, false, fn);
        return post(function () { return call(key, fn, this, arguments, false); }, opts).finally(() => pending.delete(key));
      };
    }
    if (w.AbortSignal && typeof w.AbortSignal.timeout === 'function') {
      const timeout = w.AbortSignal.timeout;
      w.AbortSignal.timeout = function (ms) {
        const signal = timeout.call(this, ms), key = follow(ms, false, timeout);
        signal.addEventListener('abort', () => pending.delete(key), {once: true});
        return signal;
      };
    }
    // Atomics.waitAsync with a timeout settles by then at the latest.
    if (w.Atomics && typeof w.Atomics.waitAsync === 'function') {
      const waitAsync = w.Atomics.waitAsync;
      w.Atomics.waitAsync = function (buf, i, v, ms) {
        const r = waitAsync.apply(this, arguments);
        if (r && r.async && Number.isFinite(Number(ms))) {
          const key = follow(ms, false, waitAsync);
          r.value.finally(() => pending.delete(key));
        }
        return r;
      };
    }

    // Messages: a handler of a message event ends the work its posting
    // started (the first queued on its target), and runs as that work.
    const taken = new WeakSet();
    const wrapMessages = (target, queueOf) => {
      if (!target || typeof target.addEventListener !== 'function') return;
      const add = target.addEventListener, remove = target.removeEventListener, wrappers = new WeakMap();
      const wrapperOf = (fn) => {
        if (typeof fn !== 'function') return fn;
        let h = wrappers.get(fn);
        if (!h) {
          h = function (ev) {
            let key;
            if (ev && typeof ev === 'object' && !taken.has(ev)) {
              taken.add(ev);
              const q = queueOf(this);
              key = q && q.shift();
            }
            return call(key, fn, this, arguments, false);
          };
          wrappers.set(fn, h);
        }
        return h;
      };
      target.addEventListener = function (type, fn, ...rest) {
        return add.call(this, type, type === 'message' ? wrapperOf(fn) : fn, ...rest);
      };
      target.removeEventListener = function (type, fn, ...rest) {
        return remove.call(this, type, type === 'message' && typeof fn === 'function' ? (wrappers.get(fn) || fn) : fn, ...rest);
      };
      const d = Object.getOwnPropertyDescriptor(target, 'onmessage') || Object.getOwnPropertyDescriptor(Object.getPrototypeOf(target), 'onmessage');
      if (d && d.set && d.get) {
        const own = new WeakMap();
        Object.defineProperty(target, 'onmessage', {
          configurable: true, enumerable: d.enumerable,
          get() { return own.has(this) ? own.get(this) : d.get.call(this); },
          set(fn) { own.set(this, fn); d.set.call(this, wrapperOf(fn)); },
        });
      }
    };
    if (typeof w.MessageChannel === 'function' && w.MessagePort) {
      const ports = new WeakMap(); // port -> {peer, queue}
      w.MessageChannel = new Proxy(w.MessageChannel, {
        construct(t, args, nt) {
          const ch = Reflect.construct(t, args, nt);
          ports.set(ch.port1, {peer: ch.port2, queue: []});
          ports.set(ch.port2, {peer: ch.port1, queue: []});
          return ch;
        },
      });
      const post = w.MessagePort.prototype.postMessage;
      w.MessagePort.prototype.postMessage = function () {
        const me = ports.get(this), to = me && ports.get(me.peer);
        if (to) to.queue.push(follow(0, false, me.peer));
        return post.apply(this, arguments);
      };
      wrapMessages(w.MessagePort.prototype, (port) => { const p = ports.get(port); return p && p.queue; });
    }
    const posted = []; // messages posted to the window itself
    const wpost = w.postMessage;
    if (typeof wpost === 'function') {
      w.postMessage = function () {
        if (this === undefined || this === null || this === w) posted.push(follow(0, false, w));
        return wpost.apply(w, arguments);
      };
      wrapMessages(w, () => posted);
    }

    // Workers, WebSockets and EventSources: at work from their start and
    // from each message the page sends them until they answer with what
    // the page shows: an answer the page shows nothing of (an
    // acknowledgement before the result) keeps the work open until the
    // DOM changes after an answer. An error or a close ends it.
    // What the page sends that may change something elsewhere and that
    // the browser's network events do not show: a retry must not do
    // again what sent it.
    const writes = []; // {at, what}
    const wrote = (what) => { writes.push({at: clock(), what}); if (writes.length > 32) writes.shift(); };
    if (w.navigator && typeof w.navigator.sendBeacon === 'function') {
      const beacon = w.navigator.sendBeacon;
      w.navigator.sendBeacon = function (url) { wrote('a beacon to ' + String(url).slice(0, 200)); return beacon.apply(this, arguments); };
    }
    const heard = new Set(); // keys answered, awaiting the DOM's change
    const answerers = new Set(); // each worker's answered()
    const answering = (target, answers, ends, broadcast) => {
      const asked = new Set([follow(0, true, target)]);
      const answered = () => { for (const key of asked) heard.add(key); asked.clear(); };
      const ended = () => { for (const key of asked) pending.delete(key); asked.clear(); };
      for (const e of answers) target.addEventListener(e, answered, true);
      for (const e of ends) target.addEventListener(e, ended, true);
      if (broadcast) answerers.add(answered);
      return {ask: () => asked.add(follow(0, true, target)), done: () => { ended(); answerers.delete(answered); }};
    };
    const watchCalls = (name, answers, ends, send, broadcast, sending) => {
      if (typeof w[name] !== 'function') return;
      w[name] = new Proxy(w[name], {
        construct(t, args, nt) {
          const it = Reflect.construct(t, args, nt);
          const a = answering(it, answers, ends, broadcast);
          if (send && typeof it[send] === 'function') {
            const orig = it[send];
            it[send] = function () { a.ask(); if (sending) wrote(sending); return orig.apply(it, arguments); };
          }
          for (const end of ['terminate', 'close']) {
            if (typeof it[end] === 'function') {
              const orig = it[end];
              it[end] = function () { a.done(); return orig.apply(it, arguments); };
            }
          }
          return it;
        },
      });
    };
    watchCalls('Worker', ['message'], ['error'], 'postMessage', true, 'a message to a worker');
    watchCalls('WebSocket', ['message'], ['error', 'close'], 'send', false);
    watchCalls('EventSource', ['message'], ['error'], null, false);
    if (typeof w.BroadcastChannel === 'function') {
      w.BroadcastChannel = new Proxy(w.BroadcastChannel, {
        construct(t, args, nt) {
          const bc = Reflect.construct(t, args, nt);
          bc.addEventListener('message', () => { for (const answered of answerers) answered(); }, true);
          return bc;
        },
      });
    }
    // A message to the page's service worker, until it answers the page.
    const sw = w.navigator && w.navigator.serviceWorker;
    if (sw && w.ServiceWorker && typeof w.ServiceWorker.prototype.postMessage === 'function') {
      const asked = new Set();
      const post = w.ServiceWorker.prototype.postMessage;
      w.ServiceWorker.prototype.postMessage = function () { asked.add(follow(0, true, sw)); wrote('a message to the service worker'); return post.apply(this, arguments); };
      sw.addEventListener('message', () => { for (const key of asked) heard.add(key); asked.clear(); }, true);
    }

    // The DOM's changes, shadow roots' included.
    let lastChange = clock(), changes = 0;
    const doc = Math.random().toString(36).slice(2);
    const options = {subtree: true, childList: true, attributes: true, characterData: true};
    const observer = new w.MutationObserver(() => {
      lastChange = clock();
      changes++;
      for (const key of heard) pending.delete(key);
      heard.clear();
    });
    observer.observe(w.document, options);
    const attach = w.Element.prototype.attachShadow;
    if (attach) {
      w.Element.prototype.attachShadow = function () {
        const root = attach.apply(this, arguments);
        observer.observe(root, options);
        return root;
      };
    }
    // A same-origin frame made without a document load runs no watch of
    // its own: it gets one the first time the page reaches into it.
    const reach = (proto, prop, windowOf) => {
      const d = proto && Object.getOwnPropertyDescriptor(proto, prop);
      if (!d || !d.get) return;
      Object.defineProperty(proto, prop, {
        configurable: true, enumerable: d.enumerable,
        get() {
          const v = d.get.call(this);
          try {
            const cw = windowOf(v);
            if (cw && cw.__roteWatched !== cw.document) install(cw);
          } catch (e) { /* another origin's, or going away */ }
          return v;
        },
      });
    };
    const frameProto = w.HTMLIFrameElement && w.HTMLIFrameElement.prototype;
    reach(frameProto, 'contentWindow', v => v);
    reach(frameProto, 'contentDocument', v => v && v.defaultView);

    const loadedAt = () => {
      const nav = w.performance.getEntriesByType('navigation')[0];
      return nav && nav.loadEventEnd > 0 ? w.performance.timeOrigin + nav.loadEventEnd : 0;
    };
    // Work the page did not schedule through a wrapped call: a meta
    // refresh (due after the load) and finite animations running now.
    const unwrapped = (now, loaded) => {
      const out = [];
      const meta = w.document.querySelector('meta[http-equiv="refresh" i]');
      const secs = meta ? parseFloat(meta.getAttribute('content') || '') : NaN;
      if (!isNaN(secs) && loaded > 0) out.push({due: loaded + secs * 1000});
      for (const a of (w.document.getAnimations ? w.document.getAnimations() : [])) {
        const t = a.playState === 'running' && a.effect ? a.effect.getComputedTiming() : null;
        if (t && isFinite(t.endTime) && t.localTime !== null) out.push({due: now + Math.max(0, (t.endTime - t.localTime) / (a.playbackRate || 1))});
      }
      // Audio and video playing to their end (an ended handler).
      for (const m of w.document.querySelectorAll('audio, video')) {
        if (!m.paused && !m.loop && isFinite(m.duration)) out.push({due: now + Math.max(0, (m.duration - m.currentTime) * 1000 / (m.playbackRate || 1))});
      }
      return out;
    };
    // work is when the next followed work of w and of its same-origin
    // frames is due (Infinity: none counts), when their DOM last changed,
    // and how often it did.
    const work = (now, from, horizon, repeat) => {
      let next = Infinity;
      const loaded = loadedAt();
      const consider = (x) => {
        // Repeating work, and open work the page started as it loaded,
        // count within the repeat horizon.
        const h = x.repeats || (x.open && loaded > 0 && x.due <= loaded) ? repeat : horizon;
        if (x.due > from + h) return;
        // Open work counts until the horizon; other work overdue by a
        // second is not coming (an idle callback the page never has the
        // idle time for).
        if (x.open ? now >= x.due + h : now - x.due >= 1000) return;
        if (x.due < next) next = x.due;
      };
      for (const [key, x] of pending) {
        if (now - x.due > 60000) pending.delete(key); // long past counting
        else consider(x);
      }
      unwrapped(now, loaded).forEach(consider);
      let last = lastChange, count = changes;
      for (let i = 0; i < w.frames.length; i++) {
        try {
          const f = w.frames[i].__roteWork;
          if (typeof f !== 'function') continue;
          const r = f(now, from, horizon, repeat);
          next = Math.min(next, r.next);
          last = Math.max(last, r.last);
          count += r.changes;
        } catch (e) { /* another origin's frame: its own target's */ }
      }
      return {next, last, changes: count};
    };
    Object.defineProperty(w, '__roteWatched', {value: w.document, configurable: true});
    Object.defineProperty(w, '__roteWork', {value: work, configurable: true});
    Object.defineProperty(w, '__roteSettle', {
      configurable: true,
      value: (quiet, since, base, horizon, repeat, capMs) => new Promise(resolve => {
        const start = clock();
        const look = () => {
          const now = clock(), loaded = loadedAt();
          const complete = w.document.readyState === 'complete';
          const r = work(now, Math.max(base, loaded), horizon, repeat);
          const idle = now - Math.max(r.last, loaded, since);
          const state = {
            ready: w.document.readyState, idle_ms: idle, timer: r.next !== Infinity, doc, changes: r.changes,
            frames: w.document.querySelectorAll('iframe, frame, object, embed').length, writes,
          };
          if (complete && r.next === Infinity && idle >= quiet) return resolve(state);
          if (now - start >= capMs) return resolve(state);
          let again = complete ? quiet - idle : 10;
          // Work due later is looked at once it is due; work overdue or
          // open again after 100 ms: a look every few milliseconds would
          // leave the page no idle period for an idle callback to run in.
          if (r.next !== Infinity) again = Math.max(again, r.next > now ? r.next - now + 1 : 100);
          wait(look, Math.min(Math.max(again, 1), capMs - (now - start)));
        };
        wait(look, 0);
      }),
    });
  };
  install(window);
})();
