// The page's address, title and the text a person can see on it: what
// text_visible checks and a repair or judgment prompt reads. innerText
// counts text nobody sees (an alert faded to opacity 0, a screen-reader
// only label, text off the page, in a box of no size or clipped away,
// transparent or of no size, the options a closed select does not show);
// this walk leaves it out. It reads each element's computed style and box
// once, and does not touch the page. Text reached by scrolling (inside a
// scrolling box, below the fold) counts: a person can scroll to it. It is
// a function of whether to read the text at all (a capture that only
// resolves a target needs none).
((withText) => {
  const out = [];
  const skip = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'HEAD', 'IFRAME', 'OBJECT', 'EMBED', 'SVG']);
  const sx = window.scrollX, sy = window.scrollY;
  const root = document.documentElement;
  const pageW = Math.max(root ? root.scrollWidth : 0, window.innerWidth);
  const pageH = Math.max(root ? root.scrollHeight : 0, window.innerHeight);
  const none = (c) => c === 'transparent' || /^rgba\([^)]*,\s*0\)$/.test(c);
  const inline = (d) => d === 'inline' || d.startsWith('inline') || d === 'contents' || d === 'ruby';
  const meet = (a, b) => ({l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b)});
  const area = (x) => Math.max(0, x.r - x.l) * Math.max(0, x.b - x.t);
  const words = (s) => s.replace(/\s+/g, ' ');
  // visit adds what el shows, inside clip (the page box its clipping
  // ancestors leave), under an opacity of op.
  const visit = (el, clip, op) => {
    if (skip.has(el.tagName.toUpperCase())) return;
    const cs = getComputedStyle(el);
    // Not rendered, or skipped (a closed <details>, content-visibility).
    if (cs.display === 'none' || (el.checkVisibility && !el.checkVisibility())) return;
    op *= parseFloat(cs.opacity);
    if (!(op > 0)) return; // no descendant comes back from opacity 0
    let shows = cs.visibility === 'visible' && !none(cs.color) && parseFloat(cs.fontSize) > 0;
    if (cs.display !== 'contents') {
      const r = el.getBoundingClientRect();
      const box = {l: r.left + sx, t: r.top + sy, r: r.right + sx, b: r.bottom + sy};
      if (box.r < 0 || box.b < 0 || box.l > pageW || box.t > pageH) return; // off the page
      if (area(box) > 1 && area(meet(box, clip)) <= 1) return; // clipped away by an ancestor
      if (area(box) <= 1) {
        // A box of no size (a screen-reader label, a box scaled to
        // nothing): its own text has no room; what overflows it shows
        // unless it cuts it.
        if (cs.overflowX !== 'visible' || cs.overflowY !== 'visible') return;
        shows = false;
      }
      if (['hidden', 'clip'].includes(cs.overflowX) || ['hidden', 'clip'].includes(cs.overflowY)) clip = meet(clip, box);
    }
    const block = !inline(cs.display);
    if (block || el.tagName === 'BR') out.push('\n');
    if (el.tagName === 'SELECT') {
      if (shows) for (const o of el.selectedOptions) out.push(words(o.text), '\n');
      return;
    }
    for (const parent of el.shadowRoot ? [el.shadowRoot, el] : [el]) {
      for (let n = parent.firstChild; n; n = n.nextSibling) {
        if (n.nodeType === Node.TEXT_NODE) {
          if (shows) out.push(words(n.data));
        } else if (n.nodeType === Node.ELEMENT_NODE) {
          visit(n, clip, op);
        }
      }
    }
    if (block) out.push('\n');
  };
  if (withText && document.body) visit(document.body, {l: 0, t: 0, r: pageW, b: pageH}, 1);
  const text = out.join('').split('\n').map(l => l.trim()).filter(l => l !== '').join('\n');
  return {url: location.href, title: document.title, text};
})
