// The turn clock on the table page (issue 8): each seat's countdown and reserve, the button
// «Que juegue un robot» once someone's time is up, the stand-in's mark, the summary a returning
// person reads, the pace in the lobby, the top bar and the menu, and a vacant seat to sit in.
// The server is the authority (state.table.clock, docs/API.md «El reloj»): this only counts down
// from the server's `now`, never from the device's clock alone.
import { h, store } from './util.js';

const C = {
  state: null,
  api: null,          // { act(type, fields) -> Promise, toast(text, kind), seatName(seat) }
  offset: 0,          // server time - device time, in ms
  timer: 0,
  busy: false,
};

let cssAdded = false;
function addCSS() {
  if (cssAdded) return;
  cssAdded = true;
  if (document.querySelector('link[href$="clock.css"]')) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = new URL('../css/clock.css', import.meta.url).href;
  document.head.append(link);
}

const parse = (iso) => (iso ? Date.parse(iso) : NaN);
const serverNow = () => Date.now() + C.offset;
const clockOf = (st) => (st && st.table && st.table.clock) || null;

/** "0:07", "1:05", "3 h 20 min", "45 min". */
export function formatLeft(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 3600) {
    const m = Math.floor(s / 60);
    const r = s % 60;
    if (s >= 600) return `${m} min`;
    return `${m}:${String(r).padStart(2, '0')}`;
  }
  const hours = Math.floor(s / 3600);
  const mins = Math.floor((s % 3600) / 60);
  return mins ? `${hours} h ${mins} min` : `${hours} h`;
}

function seatName(seat) {
  const s = ((C.state && C.state.table.seats) || [])[seat] || {};
  return s.name || `Asiento ${seat + 1}`;
}

/** What a seat's badge says now: { text, kind, canStandin }. */
export function seatLine(st, seat, nowMs = serverNow()) {
  const clock = clockOf(st);
  const t = st.table;
  const info = (t.seats || [])[seat] || {};
  const c = clock && clock.seats[seat];
  if (t.status !== 'playing' || !c) return null;
  const mine = st.me && st.me.seat === seat;
  if (info.standin) {
    return mine ? { text: 'Un robot juega por ti', kind: 'standin', canStandin: false, back: true }
      : { text: 'Hasta que vuelva', kind: 'standin', canStandin: false };
  }
  if (!c.waiting || !c.expires_at) return null;
  const expires = parse(c.expires_at);
  const deadline = parse(c.deadline);
  const timeUp = c.time_up || nowMs >= expires;
  const canStandin = timeUp && !mine && st.me && st.me.seat != null && info.kind === 'human' && !info.left;
  if (timeUp) {
    return { text: mine ? 'Se te acabó el tiempo: juega ya' : 'Se le acabó el tiempo', kind: 'up', canStandin };
  }
  if (t.pace === 'sin_reloj') {
    // No countdown: after an hour, say how long the table has been waiting (24 h allow the stand-in).
    const waited = nowMs - parse(c.started_at);
    if (!(waited >= 3600_000)) return null;
    return { text: mine ? `Te esperan hace ${formatLeft(waited)}` : `Esperando hace ${formatLeft(waited)}`, kind: 'grace', canStandin: false };
  }
  if (!Number.isNaN(deadline) && nowMs < deadline) {
    const left = formatLeft(deadline - nowMs);
    const kind = t.pace === 'en_vivo' && deadline - nowMs <= 5000 ? 'low' : 'grace';
    return { text: mine ? `Te quedan ${left}` : left, kind, canStandin: false };
  }
  return { text: `Reserva ${formatLeft(expires - nowMs)}`, kind: 'reserve', canStandin: false };
}

function standin(seat) {
  if (C.busy || !C.api) return;
  C.busy = true;
  C.api.act('standin', { seat })
    .then(() => C.api.toast(`Un robot juega por ${seatName(seat)} hasta que vuelva`))
    .catch(() => {})
    .finally(() => { C.busy = false; });
}

// Opening the table's state (not the long-poll) is a visit: the server gives the seat back and
// the page's poll brings the new state.
function comeBack() {
  if (C.busy || !C.state || !C.api) return;
  C.busy = true;
  Promise.resolve(C.api.act('come_back', {})).catch(() => {}).finally(() => { C.busy = false; });
}

// A visit is the page opening, or coming back into view: then a person whose seat a stand-in
// plays takes it back (action come_back; a GET changes nothing). A page left open whose long-poll
// shows the stand-in starting is no visit.
let visited = false;
function maybeVisit(st) {
  if (visited || document.visibilityState !== 'visible' || !st.me || st.me.seat == null) return;
  visited = true;
  const info = (st.table.seats || [])[st.me.seat] || {};
  if (info.standin) comeBack();
}
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'visible') return;
  visited = false;
  if (C.state) maybeVisit(C.state);
});

function renderSeatBadges() {
  const st = C.state;
  if (!st) return;
  for (let seat = 0; seat < 4; seat++) {
    const box = document.querySelector(`.seat[data-seat="${seat}"]`);
    if (!box) continue;
    const line = seatLine(st, seat);
    let badge = box.querySelector('.clock-badge');
    if (!line) {
      if (badge) badge.remove();
      continue;
    }
    if (!badge) {
      badge = h('div.clock-badge', { dataset: { seat: String(seat) } },
        h('span.clock-text', { role: 'timer' }));
      box.append(badge);
    }
    badge.dataset.kind = line.kind;
    const text = badge.querySelector('.clock-text');
    if (text.textContent !== line.text) text.textContent = line.text;
    let btn = badge.querySelector('.clock-standin');
    if (line.canStandin && !btn) {
      btn = h('button.btn.btn-small.clock-standin', {
        type: 'button', 'aria-label': `Que juegue un robot por ${seatName(seat)}`,
        onclick: (e) => { e.stopPropagation(); standin(seat); },
      }, 'Que juegue un robot');
      badge.append(btn);
    } else if (!line.canStandin && btn) btn.remove();
    let back = badge.querySelector('.clock-back');
    if (line.back && !back) {
      back = h('button.btn.btn-small.btn-primary.clock-back', {
        type: 'button', onclick: (e) => { e.stopPropagation(); comeBack(); },
      }, 'VOLVER A JUGAR');
      badge.append(back);
    } else if (!line.back && back) back.remove();
  }
}

function paceText(t) {
  const p = (t.paces || []).find((x) => x.id === t.pace);
  return p ? p : { label: t.pace_label || 'Sin reloj', description: '' };
}

function renderLobbyPace() {
  const st = C.state;
  const card = document.querySelector('#lobby .lobby-card');
  if (!card || st.table.status !== 'lobby') return;
  if (card.querySelector('.clock-pace')) return;
  const p = paceText(st.table);
  card.insertBefore(h('p.lobby-sub.clock-pace', null, h('b', null, `Ritmo: ${p.label}. `), p.description),
    card.children[1] || null);
}

function renderMeta() {
  const meta = document.getElementById('table-meta');
  const t = C.state.table;
  if (!meta || !t.pace_label) return;
  const text = t.pace === 'sin_reloj' ? 'sin reloj' : t.pace_label.toLowerCase();
  let bit = meta.querySelector('.meta-pace');
  if (!bit) { bit = h('span.meta-pace'); meta.append(bit); }
  if (bit.textContent !== text) bit.textContent = text;
}

function renderSummary() {
  const st = C.state;
  const sum = st.me && st.me.standin_summary;
  const key = `corazones.standin-seen.${st.table.id}`;
  let box = document.getElementById('clock-summary');
  if (!sum || store(key) === sum.id) {
    if (box) box.remove();
    return;
  }
  if (box && box.dataset.id === String(sum.id)) return;
  if (box) box.remove();
  box = h('section.clock-summary', { id: 'clock-summary', role: 'status', dataset: { id: String(sum.id) } },
    h('h2', null, 'Volviste a tu lugar'),
    h('p', null, sum.text),
    h('button.btn.btn-primary', { type: 'button', onclick: () => { store(key, sum.id); box.remove(); } }, 'Entendido'));
  document.body.append(box);
}

function renderVacant() {
  const st = C.state;
  const dock = document.getElementById('dock');
  let box = document.getElementById('clock-sit');
  const show = dock && st.table.status !== 'lobby' && st.me && st.me.seat == null && st.me.can_sit;
  if (!show) {
    if (box) box.remove();
    return;
  }
  if (box) return;
  const input = h('input', { type: 'text', maxlength: '24', placeholder: 'Tu nombre', 'aria-label': 'Tu nombre', autocomplete: 'nickname', value: store('corazones.name') || '' });
  box = h('form.clock-sit', { id: 'clock-sit', onsubmit: (e) => {
    e.preventDefault();
    const name = input.value.trim();
    if (!name) { C.api.toast('Escribe tu nombre para sentarte', 'error'); input.focus(); return; }
    store('corazones.name', name);
    C.api.act('sit', { name }).catch(() => {});
  } }, h('span', null, 'Hay un lugar libre (lo cuida un robot): escribe tu nombre y siéntate.'), input,
  h('button.btn.btn-primary', { type: 'submit' }, 'SENTARME'));
  dock.prepend(box);
}

function tick() {
  if (!C.state) return;
  renderSeatBadges();
}

/** Called by table.js after each render with the current state. */
export function renderClock(st, api) {
  if (!st || !st.table) return;
  addCSS();
  C.api = api;
  const clock = clockOf(st);
  if (clock && clock.now && st !== C.state) C.offset = parse(clock.now) - Date.now();
  C.state = st;
  maybeVisit(st);
  document.body.dataset.pace = st.table.pace || '';
  renderSeatBadges();
  renderLobbyPace();
  renderMeta();
  renderSummary();
  renderVacant();
  if (!C.timer) C.timer = setInterval(tick, 500);
}

/** The menu's lines about the pace. */
export function clockMenu(st) {
  if (!st || !st.table || !st.table.pace) return [];
  const p = paceText(st.table);
  return [h('h3', null, 'Ritmo'), h('p.menu-note.clock-menu', null, h('b', null, p.label), p.description ? ` · ${p.description}` : '')];
}
