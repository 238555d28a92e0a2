// Following a table: a server-sent event stream (one long response carries every change of the
// table, already filtered for this viewer), with the long-poll as the fallback for browsers and
// proxies that drop or buffer streams. A dropped stream reconnects by itself and starts again from
// the last version it delivered (Last-Event-ID), so nothing is missed. After its first event the
// stream sends only what changed since its previous one (a patch, tables/patches.py), merged here
// into the state the stream delivered last.
import { getJSON } from './api.js';

const HELLO_MS = 10000; // a stream silent this long after opening is held back by a proxy
const FAILS_BEFORE_POLL = 3; // streams that never worked on this page: then the long-poll
const BACKOFF_MAX_MS = 15000;

// The state of a patch's base with the patch merged in: a value replaces, null included; an object
// merges into the object it replaces, unless it comes as {$set: object} (replaced whole).
export function applyPatch(base, patch) {
  const out = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      if ('$set' in value) out[key] = value.$set;
      else {
        const before = out[key];
        out[key] = applyPatch(before && typeof before === 'object' && !Array.isArray(before) ? before : {}, value);
      }
    } else {
      out[key] = value;
    }
  }
  return out;
}

// api: the table's API path; page: this page's id (its actions' X-Page-Id: the stream leaves out
// the changes they made); version(): the version this page has; onState(state, log);
// onOnline(bool): the connection's state for the page; reload(): read the whole state again.
// Returns { restart }: open the channel again (after this device got its cookie or a seat).
export function followTable({ api, page, version, onState, onOnline, reload }) {
  let mode = typeof EventSource === 'function' ? 'stream' : 'poll';
  let es = null;
  let helloTimer = null;
  let reopenTimer = null;
  let pollCtl = null;
  let worked = false;
  let fails = 0;
  let backoff = 1000;

  function closeStream() {
    clearTimeout(helloTimer);
    clearTimeout(reopenTimer);
    if (es) es.close();
    es = null;
  }

  function openStream() {
    closeStream();
    const mine = page ? `&page=${encodeURIComponent(page)}` : '';
    const src = new EventSource(`${api}/stream?since=${version()}&patch=1${mine}`);
    es = src;
    let streamed = null; // the last state this stream delivered: what its next patch is made from
    helloTimer = setTimeout(() => { if (es === src) failed(src, true); }, HELLO_MS);
    src.addEventListener('hello', () => {
      clearTimeout(helloTimer);
      worked = true;
      fails = 0;
      backoff = 1000;
      onOnline(true);
    });
    src.addEventListener('state', (ev) => {
      let res = null;
      try { res = JSON.parse(ev.data); } catch { return; }
      onOnline(true);
      if (res && res.state) {
        streamed = res.state;
        onState(res.state, res.log || []);
      }
    });
    // A patch turns the state this stream sent last into the new one (the server keeps the same
    // one); the page may be further on already (its own action's answer), which onState sees.
    src.addEventListener('patch', (ev) => {
      let res = null;
      try { res = JSON.parse(ev.data); } catch { return; }
      onOnline(true);
      if (!res || !res.patch) return;
      if (!streamed || streamed.version !== res.base) {
        if (es === src) openStream(); // cannot happen with this server: start again, whole
        return;
      }
      streamed = applyPatch(streamed, res.patch);
      onState(streamed, res.log || []);
    });
    src.onerror = () => { if (es === src) failed(src, false); };
  }

  function failed(src, silent) {
    onOnline(false);
    if (!worked && ++fails >= FAILS_BEFORE_POLL) {
      closeStream();
      mode = 'poll';
      pollLoop();
      return;
    }
    // The browser retries a dropped stream by itself once it has worked; an HTTP error (a
    // proxy's 502 while the server restarts), a silent stream or one that never got through
    // (each of those counted above) is opened again here, waiting longer each time.
    if (!worked || silent || src.readyState === EventSource.CLOSED) {
      closeStream();
      reopenTimer = setTimeout(async () => {
        try { await reload(); } catch { /* the stream will bring it */ }
        if (mode === 'stream') openStream();
      }, backoff);
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
    }
  }

  async function pollLoop() {
    let wait = 1000;
    for (;;) {
      try {
        pollCtl = new AbortController();
        const res = await getJSON(`${api}/poll?since=${version()}`, { signal: pollCtl.signal });
        wait = 1000;
        onOnline(true);
        if (res && res.state) onState(res.state, res.log || []);
      } catch (e) {
        if (e && e.name === 'AbortError') continue;
        onOnline(false);
        await new Promise((r) => setTimeout(r, wait));
        wait = Math.min(wait * 2, BACKOFF_MAX_MS);
        try { await reload(); } catch { /* keep trying */ }
      }
    }
  }

  if (mode === 'stream') openStream();
  else pollLoop();

  return {
    mode: () => mode,
    restart() {
      if (mode === 'stream') openStream();
      else if (pollCtl) pollCtl.abort();
    },
  };
}
