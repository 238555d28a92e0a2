// The table page: renders the server's `state` for this viewer and sends the player's actions.
// docs/API.md is the contract. The server is the authority: nothing here decides a rule, it only
// shows `view.legal` / `view.illegal` and the results the server sends back.
import { getJSON, postJSON, uuid, ApiError } from './api.js';
import { DECKS, queenSVG, queenEyeSVG, suitName } from './decks.js';
import realSound from './sound.js';
import {
  $, h, faceSVG, backSVG, cardEl, short, cardLabel, sortCards, LEVELS, PASS_WORDS, PASS_SHORT,
  store, reducedMotion, copyText, openDialog, ICONS, keepElements,
} from './util.js';
import { setupInput } from './input.js';
import { setupNotify, notifyUpdate, notifyMenuItems } from './notify.js';
import { renderClock, clockMenu } from './clock.js';
import { queenLines as queenSays } from './queen.js';
import { analysisLink, replayLink, recordsMenuItems } from './records-menu.js';
import { offerSeed } from './seed.js';
import { followTable } from './updates.js';

const body = document.body;
// Every sound goes through here; the last few names are kept on <body data-sounds> for checks.
const sound = {
  get enabled() { return realSound.enabled; },
  toggle: () => realSound.toggle(),
  play(name) {
    const list = (body.dataset.sounds || '').split(' ').filter(Boolean).slice(-9);
    body.dataset.sounds = [...list, name].join(' ');
    return realSound.play(name);
  },
};
const TABLE_ID = body.dataset.tableId;
const API = body.dataset.api || `/api/tables/${TABLE_ID}`;
const POS = ['bottom', 'left', 'top', 'right'];

const S = {
  state: null,
  version: -1,
  logVersion: -1,
  deck: null,
  selected: null,
  passSel: new Set(),
  passSelHand: 0,
  focusCard: null,
  order: store(`corazones.order.${TABLE_ID}`) || null,   // {deal: 'game:hand', cards: [...]}
  shown: [],               // the trick as currently drawn (driven by the animation queue)
  queue: [],
  animating: false,
  skip: false,
  lastTurnKey: '',
  lastPhaseKey: '',
  chatSeen: store(`corazones.chatseen.${TABLE_ID}`) || 0,
  chatOpen: false,
  busy: false,
  lastResultKey: '',
  dismissedResult: '',
  channel: null,
  actedOnChannel: false,
  gameOverSounded: '',
  // game number -> the last chat id this page saw before that game began
  gameFloor: store(`corazones.gamefloor.${TABLE_ID}`) || {},
  hintNote: '',
  hintBusy: false,  // a hint asked and not answered yet
};

const els = {
  app: $('#app'), felt: $('#felt'), hand: $('#hand'), actions: $('#actions'), hintLine: $('#hint-line'),
  trick: $('#trick'), centerMsg: $('#center-msg'), pile: $('#pile'), lobby: $('#lobby'),
  flags: $('#flags'), name: $('#table-name'), meta: $('#table-meta'), chat: $('#chat'),
  chatLog: $('#chat-log'), chatForm: $('#chat-form'), chatInput: $('#chat-input'), chatBtn: $('#chat-btn'),
  chatUnread: $('#chat-unread'), announcer: $('#announcer'), toast: $('#toast'), overlay: $('#overlay'),
  menu: $('#menu'), menuBody: $('#menu-body'), modal: $('#modal'), modalTitle: $('#modal-title'),
  modalBody: $('#modal-body'), center: $('#center'),
};
// The toast shows over the top of the dock, right above the hand, where no seat name, trick card
// or hand card is (app.css places it); in the lobby, at the bottom of the screen.
$('#dock').prepend(els.toast);

// ------------------------------------------------------------------ derived facts

const view = () => (S.state && S.state.view) || null;
const me = () => (S.state && S.state.me) || { seat: null, spectator: true };
const table = () => (S.state && S.state.table) || { seats: [] };
const mySeat = () => (me().seat == null ? null : me().seat);
const baseSeat = () => (mySeat() == null ? 0 : mySeat());
const posOf = (seat) => POS[(seat - baseSeat() + 4) % 4];
const seatOf = (pos) => (baseSeat() + POS.indexOf(pos)) % 4;
const deck = () => S.deck || me().deck || table().deck || 'reino';
const seatInfo = (seat) => (table().seats || [])[seat] || { seat, kind: 'empty', name: '', label: '' };
function seatName(seat, { you = true } = {}) {
  if (seat == null) return '';
  if (you && seat === mySeat()) return 'Tú';
  const s = seatInfo(seat);
  return s.label || s.name || `Asiento ${seat + 1}`;
}
const phase = () => (view() ? view().phase : null);
const myTurn = () => {
  const v = view();
  return !!v && mySeat() != null && v.phase === 'playing' && v.turn === mySeat();
};
const rm = () => reducedMotion();
const ms = (n) => (S.skip ? 0 : rm() ? Math.min(n, 80) : n);
const pts = (n) => `${n} ${n === 1 ? 'punto' : 'puntos'}`;
const sleep = (n) => new Promise((r) => setTimeout(r, n));

// ------------------------------------------------------------------ small UI pieces

function announce(text) {
  els.announcer.textContent = '';
  setTimeout(() => { els.announcer.textContent = text; }, 30);
}

let toastTimer = 0;
// A tap on the toast closes it: it sits over the Pista and ABANDONAR buttons while it shows.
els.toast.addEventListener('click', (ev) => {
  ev.stopPropagation();
  clearTimeout(toastTimer);
  els.toast.hidden = true;
});
function toast(text, kind = 'info') {
  els.toast.textContent = text;
  els.toast.dataset.kind = kind;
  els.toast.hidden = false;
  els.toast.classList.remove('show');
  void els.toast.offsetWidth;
  els.toast.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { els.toast.hidden = true; }, kind === 'error' ? 3200 : 2400);
}

function showModal(title, content, cls = '') {
  els.modalTitle.textContent = title;
  els.modalBody.replaceChildren(content);
  els.modal.className = `sheet modal ${cls}`;
  openDialog(els.modal);
}

// ------------------------------------------------------------------ server I/O

// This page's own id: its actions carry it, and its stream then leaves out the changes those
// actions made (their answers bring them here).
const PAGE_ID = uuid();

// An answer lost on its way back (the connection, a server error) leaves the page not knowing
// whether the action was applied. Sent again with the same action id it is applied at most once
// (the server answers a repeat with the first one's answer), so the page tries once more before
// it tells the player.
const RESEND_AFTER_MS = 700;
const answerLost = (e) => e instanceof ApiError && (e.status === 0 || e.status >= 500);

async function send(payload) {
  const post = () => postJSON(`${API}/actions`, payload, { headers: { 'X-Page-Id': PAGE_ID } });
  try {
    return await post();
  } catch (e) {
    if (!answerLost(e)) throw e;
    await new Promise((resolve) => setTimeout(resolve, RESEND_AFTER_MS));
    return post();
  }
}

async function act(type, fields = {}, { retry = true, quiet = false } = {}) {
  const payload = { action_id: uuid(), version: S.version, type, ...fields };
  try {
    const res = await send(payload);
    if (res && res.state) applyState(res.state, res.log || [], { own: true });
    // A long-poll sent before this device had its cookie describes the table as a stranger sees
    // it, and may arrive first with the same or a newer version: read the table again as ourselves.
    if (type === 'sit') getJSON(API).then((r) => applyState(r.state, [], { own: true })).catch(() => {});
    // The channel was opened before this device had its cookie (or its seat): open it again.
    if (S.channel && (type === 'sit' || !S.actedOnChannel)) S.channel.restart();
    S.actedOnChannel = true;
    return res;
  } catch (e) {
    if (e instanceof ApiError && e.state) applyState(e.state, []);
    // Both answers lost: the action may have been applied all the same, and the stream does not
    // send this page's own changes: read the table again.
    else if (answerLost(e)) loadState().catch(() => {});
    if (e instanceof ApiError && e.code === 'stale' && retry) return act(type, fields, { retry: false, quiet });
    if (e instanceof ApiError && !quiet) {
      sound.play('error');
      toast(e.message, 'error');
    }
    throw e;
  }
}

async function loadState() {
  const res = await getJSON(API);
  applyState(res.state, [], { initial: S.state == null || res.state.version > S.version });
}

// The table's changes: a stream, or the long-poll where streams do not get through (updates.js).
function follow() {
  S.channel = followTable({
    api: API,
    page: PAGE_ID,
    version: () => S.version,
    onState: (state, log) => applyState(state, log),
    onOnline: (up) => { body.dataset.online = up ? '1' : '0'; },
    reload: loadState,
  });
}

document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') loadState().catch(() => {});
});

// ------------------------------------------------------------------ applying a state

function applyState(state, log, { initial = false, own = false } = {}) {
  if (!state) return;
  // Older versions are stale. A poll at the version we have brings nothing new; the answer to our
  // own action always counts (a poll sent before this device sat down saw a stranger's table).
  if (S.state && !initial && (own ? state.version < S.version : state.version <= S.version)) return;
  const prev = S.state;
  const prevView = prev && prev.view;
  const prevGame = prev && prev.table && prev.table.game_number;
  const game = state.table && state.table.game_number;
  if (prevGame != null && game != null && game !== prevGame && S.gameFloor[game] == null) {
    S.gameFloor[game] = (prev.chat || []).reduce((a, m) => Math.max(a, m.id), 0);
    store(`corazones.gamefloor.${TABLE_ID}`, S.gameFloor);
  }
  S.state = state;
  S.version = state.version;
  if (!S.deck) S.deck = state.me && state.me.deck;
  const v = state.view;

  // Animate what happened since the version we had, card by card.
  const entries = (log || []).filter((e) => e.version > S.logVersion).sort((a, b) => a.version - b.version);
  if (entries.length) S.logVersion = entries[entries.length - 1].version;
  if (initial || !prevView || !v) {
    S.queue = [];
    S.shown = v ? v.trick.slice() : [];
    S.logVersion = Math.max(S.logVersion, state.version);
  } else {
    for (const e of entries) enqueue(e);
    // If the log did not cover the change (missed versions), resynchronise the trick.
    if (!entries.length && !S.animating && !S.queue.length) S.shown = v.trick.slice();
  }
  if (prevView && v && prevView.phase === 'passing' && v.phase === 'playing' && v.pass_direction !== 'none') {
    sound.play('pass');
    if (mySeat() != null && (v.received || []).length) announce(`Recibiste ${v.received.map(cardLabel).join(', ')}`);
  }
  if (v && v.phase !== 'passing') S.passSel.clear();
  if (v && v.phase === 'passing' && v.pass_selected && v.pass_selected.length === 3 && !S.passSel.size) {
    S.passSel = new Set(v.pass_selected);
  }
  if (S.selected && !(v && (v.hand || []).includes(S.selected))) S.selected = null;
  render();
  runQueue();
  offerSeed(state, `${API}/actions`);
}

function enqueue(entry) {
  const events = entry.events || [];
  const play = events.find((ev) => ev.type === 'play') || (entry.type === 'play' && entry.card ? entry : null);
  if (play && play.card) S.queue.push({ kind: 'play', seat: play.seat, card: play.card, version: entry.version });
  for (const ev of events) {
    if (ev.type === 'hearts_broken') S.queue.push({ kind: 'sound', name: 'hearts', say: 'Corazones rotos' });
    if (ev.type === 'queen_played') S.queue.push({ kind: 'sound', name: 'queen', say: 'Se jugó la reina de picas' });
    if (ev.type === 'trick') S.queue.push({ kind: 'collect', winner: ev.winner, points: ev.points });
    if (ev.type === 'deal') S.queue.push({ kind: 'reset' });
  }
  if (entry.type === 'deal') S.queue.push({ kind: 'reset' });
}

async function runQueue() {
  if (S.animating) return;
  S.animating = true;
  body.dataset.animating = '1';
  try {
    while (S.queue.length) {
      const item = S.queue.shift();
      if (item.kind === 'play') {
        if (S.shown.length >= 4) S.shown = [];
        S.shown.push({ seat: item.seat, card: item.card });
        renderTrick({ fly: item });
        sound.play('card');
        await sleep(ms(item.seat === mySeat() ? 260 : 380));
      } else if (item.kind === 'collect') {
        // Time to see the whole trick before it goes (motion or not); a tap skips it.
        await sleep(S.skip ? 0 : rm() ? 350 : 750);
        await collectAnim(item.winner);
        sound.play('trick');
        const who = item.winner === mySeat() ? 'Te llevas' : `${seatName(item.winner)} se lleva`;
        announce(`${who} la baza${item.points ? ` (${item.points} ${item.points === 1 ? 'punto' : 'puntos'})` : ''}`);
        S.shown = [];
        renderTrick();
      } else if (item.kind === 'sound') {
        sound.play(item.name);
        announce(item.say);
      } else if (item.kind === 'reset') {
        S.shown = [];
        renderTrick();
      }
    }
  } finally {
    S.animating = false;
    S.skip = false;
    body.dataset.animating = '0';
    const v = view();
    S.shown = v ? v.trick.slice() : [];
    render();
  }
}

async function collectAnim(winner) {
  const slots = [...els.trick.querySelectorAll('.slot .card')];
  const target = document.querySelector(`.seat[data-pos="${posOf(winner)}"]`);
  if (!slots.length || !target || S.skip) return;
  const t = target.getBoundingClientRect();
  const anims = slots.map((c) => {
    const r = c.getBoundingClientRect();
    const dx = t.left + t.width / 2 - (r.left + r.width / 2);
    const dy = t.top + t.height / 2 - (r.top + r.height / 2);
    return c.animate(
      [{ transform: 'none', opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(.35)`, opacity: 0.2 }],
      { duration: ms(rm() ? 80 : 420), easing: 'cubic-bezier(.5,0,.75,0)', fill: 'forwards' },
    );
  });
  await Promise.all(anims.map((a) => a.finished.catch(() => {})));
}

// ------------------------------------------------------------------ rendering

function render() {
  const st = S.state;
  if (!st) return;
  const v = view();
  const t = table();
  body.dataset.status = t.status || '';
  body.dataset.phase = v ? v.phase : (t.status || '');
  body.dataset.myTurn = myTurn() ? '1' : '0';
  body.dataset.spectator = mySeat() == null ? '1' : '0';
  body.dataset.version = String(S.version);
  body.dataset.seat = mySeat() == null ? '' : String(mySeat());
  body.dataset.game = String(t.game_number || 1);
  body.dataset.hand = v ? String(v.hand_number) : '';
  renderTop();
  renderSeats();
  renderLobby();
  renderCenter();
  renderTrick();
  renderActions();
  renderLegend();
  renderHand();
  renderChat();
  renderOverlay();
  noticeTurn();
  notifyUpdate(st);
  renderClock(st, { act, toast });
}

function renderTop() {
  const t = table();
  const v = view();
  els.name.textContent = t.name || 'Corazones';
  document.title = `${myTurn() ? '¡Te toca! · ' : ''}${t.name || 'Corazones'} · Corazones`;
  // What changes first (watching, the pass, the hand), then the table's settings; each bit is
  // its own span and the line wraps between bits, so none is cut (clock.js adds the pace).
  const bits = [];
  if (mySeat() == null && !(t.status === 'lobby' && me().can_sit)) bits.push('estás mirando');
  if (v && v.phase === 'passing' && v.pass_direction !== 'none') bits.push(`pase ${PASS_SHORT[v.pass_direction] || ''}`);
  if (v && v.pass_direction === 'none' && ['passing', 'playing'].includes(v.phase)) bits.push('esta mano no se pasa');
  if (v && v.hand_number) bits.push(`mano ${v.hand_number}`);
  bits.push(`a ${t.target || 100}`, `renuncio ${t.renege || 'impedido'}`);
  if (t.spectators) bits.push(`${t.spectators} ${t.spectators === 1 ? 'mira' : 'miran'}`);
  const metaKey = bits.join('|');
  if (els.meta.dataset.key !== metaKey) {
    els.meta.dataset.key = metaKey;
    els.meta.replaceChildren(...bits.map((b) => h('span', null, b)));
  }
  const flags = [];
  const live = v && ['playing', 'counting'].includes(v.phase);
  if (live && v.hearts_broken) flags.push(h('span.flag.flag-hearts', null, '♥ Corazones rotos'));
  if (live && v.queen_played) flags.push(h('span.flag.flag-queen', null, '♠Q jugada'));
  els.flags.replaceChildren(...flags);
}

function heartsTaken(v, seat) {
  return ((v.taken_cards || [])[seat] || []).filter((c) => c[1] === 'H').length;
}

function queenWatching(v) {
  if (!v || !['playing', 'counting'].includes(v.phase)) return null;
  const counts = [0, 1, 2, 3].map((s) => heartsTaken(v, s));
  const max = Math.max(...counts);
  if (max === 0) return null;
  const who = counts.map((c, s) => (c === max ? s : -1)).filter((s) => s >= 0);
  return who.length === 1 ? who[0] : null;
}

function renderSeats() {
  const v = view();
  const t = table();
  const watched = queenWatching(v);
  for (let seat = 0; seat < 4; seat++) {
    const pos = posOf(seat);
    const box = document.getElementById(`seat-${pos}`);
    const s = seatInfo(seat);
    box.dataset.seat = String(seat);
    box.classList.toggle('empty', s.kind === 'empty');
    box.classList.toggle('robot', s.kind === 'robot');
    const turn = v && ((v.phase === 'playing' && v.turn === seat) || (v.phase === 'passing' && !v.pass_confirmed[seat]));
    box.classList.toggle('turn', !!turn && t.status === 'playing');
    const kids = [];
    let fanCount = 0;
    const name = s.kind === 'empty' ? 'Libre' : (seat === mySeat() ? `${s.name || 'Tú'} (tú)` : (s.label || s.name));
    const avatar = h('span.avatar', { 'aria-hidden': 'true' }, s.kind === 'empty' ? '·' : (s.name || '?').slice(0, 1).toUpperCase());
    if (s.kind === 'robot') avatar.innerHTML = ICONS.robot;
    const nameEl = h('span.seat-name', null, name);
    if (s.is_host) nameEl.append(h('span.host-mark', { title: 'Arma la mesa', 'aria-label': 'arma la mesa' }, '★'));
    kids.push(h('div.seat-id', null, avatar, nameEl));
    if (v) {
      const pts = (v.points_taken || [])[seat] || 0;
      const tot = (v.totals || [])[seat] || 0;
      kids.push(h('div.seat-score', null,
        h('span.pts', { title: 'Puntos en esta mano' }, h('span.lbl', null, 'Mano '), String(pts)),
        h('span.tot', { title: 'Total' }, h('span.lbl', null, 'Total '), String(tot))));
      const badges = [];
      if (turn && v.phase === 'playing') badges.push(h('span.badge-turn', null, seat === mySeat() ? 'Te toca' : 'Le toca'));
      if (v.phase === 'passing' && v.pass_direction !== 'none') {
        badges.push(v.pass_confirmed[seat] ? h('span.badge-ok', null, 'Pasó ✓') : h('span.badge-wait', null, 'Eligiendo…'));
      }
      if (v.moon_threat === seat) badges.push(h('span.badge-moon', { title: 'Amenaza de luna' }, '☾', h('span.txt', null, ' Amenaza de luna')));
      if (watched === seat) badges.push(h('span.queen-eye', { html: queenEyeSVG({ label: 'La Dama de Corazones vigila a quien junta corazones' }), title: 'La Dama de Corazones te vigila' }));
      if (s.left) badges.push(h('span.badge-left', null, 'Se fue'));
      if (t.status === 'finished' && s.wants_rematch) badges.push(h('span.badge-ok', null, '¡Revancha!'));
      if (badges.length) kids.push(h('div.seat-badges', null, badges));
      if (pos !== 'bottom') {
        const n = (v.cards_left || [])[seat] || 0;
        if (n && ['passing', 'playing'].includes(v.phase)) fanCount = n;
      }
    }
    box.setAttribute('aria-label', `${name}${turn ? ', tiene el turno' : ''}`);
    // Rebuild a seat only when what it shows changed (card backs are costly SVG).
    const key = kids.map((k) => k.innerHTML).join('|') + deck() + fanCount;
    if (box.dataset.key === key) continue;
    box.dataset.key = key;
    if (fanCount) {
      const fan = h('div.backs', { 'aria-label': `${fanCount} cartas` });
      fan.innerHTML = Array.from({ length: Math.min(3, fanCount) }, () => `<div class="card back">${backSVG(deck())}</div>`).join('');
      fan.append(h('span.count', null, String(fanCount)));
      kids.push(fan);
    }
    box.replaceChildren(...kids);
  }
}

// The lobby and the overlay (the count, the end scene) are drawn whole. While a pointer is down
// in one of them its redraw waits: a click reaches a button only if the pointer went down and up
// on the same element, and a redraw in between would put a new one in its place (another
// person sitting down as the host taps AGREGAR ROBOT, a robot's ¡REVANCHA! as a person taps
// theirs). The region is drawn once the press has ended and its click has run.
const press = { region: null, due: false, n: 0 };
function pressEnded(n = press.n) {
  if (!press.region || n !== press.n) return;  // already ended, or a later press
  press.region = null;
  if (press.due) { press.due = false; renderLobby(); renderOverlay(); }
}
function heldByPress(region) {
  if (press.region !== region) return false;
  press.due = true;
  return true;
}
document.addEventListener('pointerdown', (e) => {
  press.n += 1;
  press.region = [els.lobby, els.overlay].find((r) => r.contains(e.target)) || null;
}, true);
// After the click's handlers (a touch's click comes after its pointerup); a press that ends
// without a click (the pointer moved away) lets go a moment later.
document.addEventListener('click', () => { const { n } = press; setTimeout(() => pressEnded(n), 0); }, true);
document.addEventListener('pointerup', () => { const { n } = press; setTimeout(() => pressEnded(n), 400); }, true);
document.addEventListener('pointercancel', () => pressEnded(), true);

function renderLobby() {
  const t = table();
  const lobby = t.status === 'lobby';
  if (heldByPress(els.lobby)) return;
  els.lobby.hidden = !lobby;
  els.center.hidden = lobby;
  if (!lobby) { els.lobby.dataset.key = ''; return; }
  const m = me();
  // Rebuild only when something shown changed, keeping what a newcomer is typing and the focus.
  const key = JSON.stringify([t.seats, m, t.robot_level, t.name]);
  if (els.lobby.dataset.key === key) return;
  els.lobby.dataset.key = key;
  const typing = $('#sit-name');
  const typed = typing ? typing.value : null;
  const focusId = els.lobby.contains(document.activeElement) ? document.activeElement.id : '';
  const url = `${location.origin}/t/${TABLE_ID}`;
  const parts = [h('h2', null, 'Antes de empezar')];
  const linkRow = h('div.link-row', null,
    h('input.link', { type: 'text', readonly: true, value: url, 'aria-label': 'Enlace de la mesa', id: 'table-link' }),
    h('button.btn.btn-primary', { type: 'button', id: 'copy-btn', onclick: async () => {
      const ok = await copyText(url);
      toast(ok ? 'Enlace copiado: mándalo a tres personas' : 'Copia el enlace a mano');
    } }, 'COPIAR'));
  if (navigator.share) {
    linkRow.append(h('button.btn', { type: 'button', onclick: () => navigator.share({ title: 'Corazones', text: `Ven a jugar Corazones en ${t.name || 'mi mesa'}`, url }).catch(() => {}) }, 'Compartir'));
  }
  parts.push(h('p.lobby-sub', null, 'Manda el enlace: los tres primeros que lo abran juegan; los que lleguen después, miran.'), linkRow);
  const list = h('ol.lobby-seats');
  for (const s of t.seats || []) {
    const row = h('li.lobby-seat', { dataset: { seat: String(s.seat), kind: s.kind } });
    row.append(h('span.lobby-name', null, s.kind === 'empty' ? 'Lugar libre' : s.label || s.name,
      s.is_host ? h('small', null, ' · arma la mesa') : null, s.seat === m.seat ? h('small', null, ' · tú') : null));
    if (m.is_host && s.kind === 'empty') {
      row.append(h('button.btn.btn-small', { type: 'button', onclick: () => act('add_robot', { seat: s.seat }).catch(() => {}) }, 'AGREGAR ROBOT'));
    }
    if (m.is_host && s.kind === 'robot') {
      row.append(h('button.btn.btn-small.btn-ghost', { type: 'button', onclick: () => act('remove_robot', { seat: s.seat }).catch(() => {}) }, 'QUITAR'));
    }
    list.append(row);
  }
  parts.push(list);
  parts.push(h('p.lobby-sub', null, `Robots en nivel ${LEVELS[t.robot_level] || 'Normal'}: Carmen, Tito y Luna juegan limpio y siempre aceptan la revancha.`));
  const seated = (t.seats || []).filter((s) => s.kind !== 'empty').length;
  if (m.seat == null && m.can_sit) {
    const input = h('input', { type: 'text', maxlength: '24', required: true, placeholder: 'Tu nombre', 'aria-label': 'Tu nombre', id: 'sit-name', autocomplete: 'nickname', value: document.body.dataset.myName || store('corazones.name') || '' });
    // A guest picks the deck they see right here, as the host did on the home page.
    if (!S.sitDeck) S.sitDeck = deck();
    const pick = deckPicker(() => S.sitDeck, (id) => {
      S.sitDeck = id;
      for (const b of pick.querySelectorAll('.deck-opt')) b.setAttribute('aria-checked', b.dataset.deck === id ? 'true' : 'false');
    }, 'sit-deck');
    const form = h('form.sit-form', { onsubmit: (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (!name) { toast('Escribe tu nombre para sentarte', 'error'); input.focus(); return; }
      store('corazones.name', name);
      const chosen = S.sitDeck;
      act('sit', { name }).then(() => { if (chosen !== me().deck) setDeck(chosen); }).catch(() => {});
    } }, input, h('button.btn.btn-primary', { type: 'submit' }, 'SENTARME'));
    parts.push(h('p.lobby-sub', null, 'Hay lugar: escribe tu nombre, elige tu baraja y siéntate.'), form,
      h('p.lobby-sub.sit-deck-title', { id: 'sit-deck-title' }, 'Tu baraja (cada jugador elige la que ve):'), pick);
  } else if (m.seat == null) {
    parts.push(h('p.watching', null, 'La mesa está completa: estás mirando.'));
  }
  if (m.is_host) {
    parts.push(h('button.btn.btn-primary.btn-big', {
      type: 'button', id: 'start-btn', disabled: seated < 4,
      onclick: () => act('start').catch(() => {}),
    }, 'EMPEZAR LA PARTIDA'));
    if (seated < 4) parts.push(h('p.lobby-sub', null, `Faltan ${4 - seated}: espera a que lleguen o toca AGREGAR ROBOT.`));
  } else if (m.seat != null) {
    const host = (t.seats || []).find((s) => s.is_host);
    parts.push(h('p.lobby-sub', null, `Esperando a que ${host ? host.name : 'quien arma la mesa'} empiece la partida.`));
  }
  els.lobby.replaceChildren(h('div.lobby-card', null, parts));
  const input = $('#sit-name');
  if (input && typed != null) input.value = typed;
  if (focusId) { const again = document.getElementById(focusId); if (again) again.focus(); }
}

const ARROWS = { left: '←', right: '→', across: '↑' };

function renderCenter() {
  const v = view();
  els.centerMsg.replaceChildren();
  els.pile.hidden = true;
  if (!v) return;
  const msg = [];
  if (v.phase === 'passing' && v.pass_direction !== 'none') {
    const to = mySeat() != null ? v.pass_to : null;
    const done = mySeat() != null && v.pass_confirmed[mySeat()];
    const arrow = h('div.pass-arrow', { dataset: { dir: v.pass_direction }, 'aria-hidden': 'true' }, ARROWS[v.pass_direction]);
    msg.push(arrow);
    if (to != null && !done) msg.push(h('p', null, `Tus 3 cartas van para ${seatName(to)}`));
    else if (done) {
      const waiting = [0, 1, 2, 3].filter((s) => !v.pass_confirmed[s]).map((s) => seatName(s));
      msg.push(h('p', null, waiting.length ? `Esperando a ${waiting.join(', ')}` : 'Intercambiando…'));
    } else msg.push(h('p', null, `Se pasa ${PASS_SHORT[v.pass_direction]}`));
  } else if (v.phase === 'playing' && v.pass_direction === 'none' && (v.tricks || []).length === 0 && S.shown.length === 0) {
    msg.push(h('p.no-pass', null, 'Esta mano no se pasa'));
  } else if (v.phase === 'playing' && S.shown.length === 0 && (v.tricks || []).length === 0 && v.turn != null) {
    msg.push(h('p', null, v.turn === mySeat() ? 'Sales tú con el 2 de tréboles' : `Sale ${seatName(v.turn)} con el 2 de tréboles`));
  } else if (v.phase === 'dealing') {
    msg.push(h('p', null, 'Repartiendo…'));
  }
  els.centerMsg.replaceChildren(...msg);
  const n = (v.tricks || []).length;
  if (n && ['playing', 'counting'].includes(v.phase)) {
    els.pile.hidden = false;
    if (els.pile.dataset.deck !== deck()) {
      els.pile.innerHTML = backSVG(deck()) + '<span class="count"></span>';
      els.pile.dataset.deck = deck();
    }
    els.pile.querySelector('.count').textContent = String(n);
    els.pile.setAttribute('aria-label', `Ver la última baza (${n} jugadas)`);
    els.pile.dataset.pos = posOf(v.tricks[n - 1].winner);
  }
}

function renderTrick({ fly } = {}) {
  const slots = {};
  for (const el of els.trick.querySelectorAll('.slot')) { slots[el.dataset.pos] = el; }
  const wanted = new Map(S.shown.map((p) => [posOf(p.seat), p.card]));
  for (const pos of POS) {
    const slot = slots[pos];
    const card = wanted.get(pos);
    const cur = slot.firstElementChild;
    if (!card) { if (cur) cur.remove(); continue; }
    if (cur && cur.dataset.card === card && cur.dataset.deck === deck()) continue;
    const el = cardEl(card, deck());
    el.setAttribute('role', 'img');
    el.setAttribute('aria-label', `${seatName(seatOf(pos))}: ${cardLabel(card)}`);
    slot.replaceChildren(el);
    if (fly && fly.card === card && !S.skip) flyIn(el, fly.seat);
  }
  els.trick.dataset.count = String(S.shown.length);
  if (S.shown.length) els.centerMsg.replaceChildren();
}

const lastHandRects = new Map();
function flyIn(el, seat) {
  let from;
  if (seat === mySeat() && lastHandRects.has(el.dataset.card)) from = lastHandRects.get(el.dataset.card);
  else {
    const seatEl = document.querySelector(`.seat[data-pos="${posOf(seat)}"]`);
    from = seatEl && seatEl.getBoundingClientRect();
  }
  if (!from) return;
  const to = el.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const sc = seat === mySeat() ? Math.max(0.5, from.width / Math.max(1, to.width)) : 0.5;
  el.animate(
    [{ transform: `translate(${dx}px, ${dy}px) scale(${sc}) rotate(${seat === mySeat() ? 0 : -12}deg)`, opacity: 0.6 },
      { transform: 'none', opacity: 1 }],
    { duration: ms(rm() ? 60 : 320), easing: 'cubic-bezier(.2,.8,.3,1)' },
  );
}

function renderActions() {
  const v = view();
  const t = table();
  const btns = [];
  const seated = mySeat() != null;
  let line = '';
  let warn = false;
  if (seated && v && v.phase === 'passing' && v.pass_direction !== 'none') {
    const done = v.pass_confirmed[mySeat()];
    if (!done) {
      const n = S.passSel.size;
      btns.push(h('button.btn.btn-primary.btn-pass', {
        type: 'button', id: 'pass-btn', disabled: n !== 3,
        onclick: confirmPass,
      }, h('span.arrow', { 'aria-hidden': 'true' }, ARROWS[v.pass_direction]), ` ${PASS_WORDS[v.pass_direction]}`));
      line = n === 3 ? `Listo: ${[...S.passSel].map(short).join(' ')} van para ${seatName(v.pass_to)}` : `Elige 3 cartas para pasar (${n} de 3)`;
    } else line = 'Pasaste tus cartas. Esperando a los demás…';
  } else if (seated && v && v.phase === 'playing') {
    if (myTurn()) {
      line = S.selected ? `Toca otra vez ${short(S.selected)} para jugarla, o arrástrala a la mesa` : 'Te toca: elige una carta';
      if (S.selected && (v.renege_cards || []).includes(S.selected)) {
        line = `Ojo: con ${short(S.selected)} renuncias (por tu cuenta y riesgo). Tócala otra vez para jugarla.`;
        warn = true;
      }
    } else if (v.turn != null) line = `Le toca a ${seatName(v.turn)}`;
  } else if (!seated && v && t.status === 'playing') {
    line = v.turn != null && v.phase === 'playing' ? `Le toca a ${seatName(v.turn)}` : '';
  }
  if (seated && myTurn() && S.selected) {
    const card = S.selected;
    btns.push(h('button.btn.btn-primary.btn-play', { type: 'button', id: 'play-btn', onclick: () => playCard(card) }, `Jugar ${short(card)}`));
  }
  if (!S.noHint && seated && v && ['passing', 'playing'].includes(v.phase) && (v.phase === 'playing' ? myTurn() : !v.pass_confirmed[mySeat()])) {
    // While Difícil searches (a robot process answers in a fraction of a second, longer when
    // busy) the button says so and a second tap asks nothing more.
    const busy = S.hintBusy;
    btns.push(h('button.btn.btn-hint', {
      type: 'button', id: 'hint-btn', onclick: askHint, 'aria-busy': busy ? 'true' : null,
      'aria-disabled': busy ? 'true' : null, html: `${ICONS.bulb} ${busy ? 'Pensando…' : 'Pista'}`,
    }));
  }
  if (seated && v && v.can_accuse) {
    btns.push(h('button.btn.btn-accuse', { type: 'button', id: 'accuse-btn', onclick: openAccuse, html: `${ICONS.scale} ACUSAR` }));
  }
  if (seated && t.status !== 'lobby') {
    btns.push(h('button.btn.btn-ghost.btn-leave', { type: 'button', id: 'leave-btn', onclick: confirmLeave }, 'ABANDONAR'));
  }
  // The hint's suggestion stays on the line while its cards are the chosen ones.
  const chosenKey = v && v.phase === 'passing' ? [...S.passSel].sort().join(' ') : S.selected;
  if (S.hintNote && S.hintNote.key === chosenKey && !warn) line = S.hintNote.text;
  else if (S.hintNote && S.hintNote.key !== chosenKey) S.hintNote = '';
  // The buttons already shown stay the same elements (a tap across a redraw still lands, and
  // the keyboard focus stays where it was).
  keepElements(els.actions, btns);
  els.hintLine.textContent = line;
  els.hintLine.classList.toggle('warn', warn);
}

// The first time this device plays a permitido table, one line says what the red border and
// ACUSAR mean (ACUSAR itself always shows: hiding it would tell who reneged). It goes when
// closed, or once that first hand is counted.
const LEGEND_KEY = 'corazones.legend.permitido';
function renderLegend() {
  const v = view();
  const t = table();
  let box = document.getElementById('legend');
  const show = t.renege === 'permitido' && mySeat() != null && v && ['passing', 'playing'].includes(v.phase) && !store(LEGEND_KEY);
  if (box && v && v.phase === 'counting') store(LEGEND_KEY, 1);
  if (!show) { if (box) box.remove(); return; }
  if (box) return;
  box = h('p.legend', { id: 'legend' },
    h('span', null, h('b.legend-red', null, 'Borde rojo'), ': con esa carta renuncias. ', h('b', null, 'ACUSAR'), ': denuncias un renuncio.'),
    h('button.icon-btn.legend-close', { type: 'button', 'aria-label': 'Entendido, ocultar la explicación', onclick: () => { store(LEGEND_KEY, 1); box.remove(); } }, '✕'));
  els.hintLine.before(box);
}

// ------------------------------------------------------------------ the hand

function handOrder(hand) {
  const inHand = new Set(hand);
  const saved = S.order && S.order.deal === dealKey() ? S.order.cards || [] : [];
  let list = saved.filter((c) => inHand.has(c));
  const missing = sortCards(hand.filter((c) => !list.includes(c)));
  const R = '23456789TJQKA';
  for (const c of missing) {
    let at = -1;
    for (let i = 0; i < list.length; i++) {
      if (list[i][1] === c[1] && R.indexOf(list[i][0]) < R.indexOf(c[0])) at = i + 1;
    }
    if (at < 0) {
      const first = list.findIndex((x) => x[1] === c[1]);
      at = first >= 0 ? first : list.length;
    }
    list = [...list.slice(0, at), c, ...list.slice(at)];
  }
  return list;
}

// The order a player gives the hand is kept on this device for this deal; a new deal starts sorted.
const dealKey = () => `${table().game_number || 1}:${view() ? view().hand_number : 0}`;

function saveOrder(list) {
  S.order = { deal: dealKey(), cards: list };
  store(`corazones.order.${TABLE_ID}`, S.order);
}

function renderHand() {
  const v = view();
  const hand = v && v.hand ? v.hand : [];
  const spectator = mySeat() == null;
  els.hand.classList.toggle('spectating', spectator);
  if (spectator || !v || !['passing', 'playing', 'counting'].includes(v.phase)) {
    els.hand.replaceChildren();
    if (spectator && v) els.hand.append(h('p.watching', null, 'Estás mirando: solo ves las cartas que están en la mesa.'));
    return;
  }
  const order = handOrder(hand);
  const existing = new Map([...els.hand.querySelectorAll('.card')].map((el) => [el.dataset.card, el]));
  for (const [c, el] of existing) {
    const r = el.getBoundingClientRect();
    if (r.width) lastHandRects.set(c, r);
    if (!hand.includes(c) || el.dataset.deck !== deck()) { el.remove(); existing.delete(c); }
  }
  for (const n of [...els.hand.children]) if (!n.classList.contains('card')) n.remove();
  const legal = new Set(v.legal || []);
  const passing = v.phase === 'passing' && v.pass_direction !== 'none' && !v.pass_confirmed[mySeat()];
  const playing = myTurn();
  const showReceived = v.phase === 'playing' && v.pass_direction !== 'none' && ((v.cards_left || [])[mySeat()] === 13);
  const received = new Set(showReceived ? v.received || [] : []);
  if (S.focusCard && !hand.includes(S.focusCard)) S.focusCard = null;
  if (!S.focusCard) S.focusCard = order[0] || null;
  order.forEach((c, i) => {
    let el = existing.get(c);
    if (!el) {
      el = h('button.card', { type: 'button', dataset: { card: c, deck: deck() } });
      el.innerHTML = faceSVG(c, deck());
    }
    const sel = passing ? S.passSel.has(c) : (playing && S.selected === c);
    el.classList.toggle('selected', sel);
    el.classList.toggle('playable', playing && legal.has(c));
    el.classList.toggle('dimmed', playing && !legal.has(c));
    el.classList.toggle('received', received.has(c));
    // A real element (not ::after) so that it can lie along the card's visible strip.
    const tag = el.querySelector(':scope > .tag');
    if (received.has(c) && !tag) el.append(h('span.tag', { 'aria-hidden': 'true' }, 'recibida'));
    else if (!received.has(c) && tag) tag.remove();
    el.classList.toggle('renege', playing && (v.renege_cards || []).includes(c));
    el.classList.toggle('outgoing', v.phase === 'passing' && v.pass_confirmed[mySeat()] && (v.passed || []).includes(c));
    el.setAttribute('aria-pressed', sel ? 'true' : 'false');
    let label = cardLabel(c);
    if (received.has(c)) label += ', recibida';
    if (el.classList.contains('outgoing')) label += ', la pasas';
    if (playing && !legal.has(c)) label += ', no se puede jugar';
    el.setAttribute('aria-label', label);
    el.tabIndex = c === S.focusCard ? 0 : -1;
    if (els.hand.children[i] !== el) els.hand.insertBefore(el, els.hand.children[i] || null);
  });
  layoutHand();
}

function layoutHand() {
  const cards = [...els.hand.querySelectorAll('.card')];
  const n = cards.length;
  if (!n) return;
  const W = els.hand.clientWidth - 8;
  const vh = window.innerHeight;
  // Short landscape screens: slightly smaller cards and a lower lift keep the trick large under
  // 44 px buttons.
  const low = vh < 500;
  let cw = Math.min(118, Math.max(50, W / 5.2), vh * (low ? 0.15 : 0.17));
  if (window.innerWidth < 500) cw = Math.min(Math.max(cw, 64), 74);
  const step = n > 1 ? Math.min(cw * 0.9, (W - cw) / (n - 1)) : 0;
  els.hand.style.setProperty('--card-w', `${Math.round(cw)}px`);
  els.hand.style.setProperty('--hand-h', `${Math.round(cw * 1.4 + cw * (low ? 0.18 : 0.3))}px`);
  cards.forEach((el, i) => {
    el.style.setProperty('--card-w', `${Math.round(cw)}px`);
    el.style.marginLeft = i ? `${Math.round(step - cw)}px` : '0px';
    el.style.zIndex = String(i + 1);
  });
  // The «recibida» tags run up the card's edge when the visible strip is too narrow for them.
  els.hand.classList.remove('tight');
  const tag = els.hand.querySelector('.card > .tag');
  els.hand.classList.toggle('tight', n > 1 && !!tag && tag.offsetWidth + 8 > step);
}

function onCard(card) {
  const v = view();
  if (!v || mySeat() == null) return;
  S.focusCard = card;
  if (v.phase === 'passing') {
    if (v.pass_direction === 'none') return;
    if (v.pass_confirmed[mySeat()]) { toast('Ya pasaste tus cartas'); return; }
    if (S.passSel.has(card)) S.passSel.delete(card);
    else if (S.passSel.size >= 3) { sound.play('error'); toast('Ya elegiste 3: toca una de ellas para soltarla', 'error'); return; }
    else S.passSel.add(card);
    sound.play('card');
    if (S.passSel.size === 3) act('choose_pass', { cards: [...S.passSel] }).catch(() => {});
    renderHand();
    renderActions();
    return;
  }
  if (v.phase !== 'playing') return;
  if (v.turn !== mySeat()) {
    sound.play('error');
    toast(`No es tu turno: le toca a ${seatName(v.turn)}`, 'error');
    shake(card);
    return;
  }
  if (!(v.legal || []).includes(card)) {
    sound.play('error');
    const why = (v.illegal || {})[card] || 'Esa carta no se puede jugar ahora';
    toast(why, 'error');
    announce(why);
    shake(card);
    return;
  }
  if (S.selected === card) { playCard(card); return; }
  S.selected = card;
  renderHand();
  renderActions();
}

function shake(card) {
  const el = els.hand.querySelector(`.card[data-card="${card}"]`);
  if (el && !rm()) el.animate([{ translate: '0' }, { translate: '-6px' }, { translate: '6px' }, { translate: '0' }], { duration: 240 });
}

async function playCard(card) {
  if (S.busy) return;
  const el = els.hand.querySelector(`.card[data-card="${card}"]`);
  if (el) lastHandRects.set(card, el.getBoundingClientRect());
  S.busy = true;
  S.selected = null;
  try {
    await act('play', { card });
  } catch { /* toast shown */ } finally {
    S.busy = false;
  }
}

async function confirmPass() {
  const v = view();
  if (!v || S.passSel.size !== 3 || S.busy) return;
  S.busy = true;
  const cards = [...S.passSel];
  try {
    await act('confirm_pass', { cards });
    sound.play('pass');
    announce(`Pasaste ${cards.map(cardLabel).join(', ')}`);
  } catch { /* toast shown */ } finally {
    S.busy = false;
  }
}

// Pointer: tap, drag to the table to play, drag sideways to reorder.
function setupHandPointer() {
  let drag = null;
  els.hand.addEventListener('pointerdown', (e) => {
    const el = e.target.closest('.card');
    if (!el || e.button > 0) return;
    drag = { el, card: el.dataset.card, x0: e.clientX, y0: e.clientY, mode: null, id: e.pointerId };
  });
  els.hand.addEventListener('pointermove', (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x0;
    const dy = e.clientY - drag.y0;
    if (!drag.mode) {
      if (Math.abs(dx) < 10 && Math.abs(dy) < 10) return;
      drag.mode = Math.abs(dy) > Math.abs(dx) && dy < 0 ? 'play' : 'sort';
      try { drag.el.setPointerCapture(e.pointerId); } catch { /* ignore */ }
      drag.el.classList.add('dragging');
    }
    drag.el.style.translate = `${dx}px ${drag.mode === 'play' ? dy : 0}px`;
  });
  const end = (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const d = drag;
    drag = null;
    if (!d.mode) return;  // a plain tap: the click handler does it
    d.el.classList.remove('dragging');
    d.el.style.translate = '';
    d.el.dataset.dragged = '1';
    setTimeout(() => { delete d.el.dataset.dragged; }, 50);
    if (d.mode === 'play') {
      const felt = els.felt.getBoundingClientRect();
      if (e.clientY < felt.bottom - 10 && e.clientY > felt.top) {
        const v = view();
        if (v && v.phase === 'playing' && myTurn() && (v.legal || []).includes(d.card)) {
          playCard(d.card);
        } else onCard(d.card);
      }
      return;
    }
    // Reorder: the card goes before the first card whose centre is right of the pointer.
    const others = [...els.hand.querySelectorAll('.card')].filter((c) => c !== d.el);
    let idx = others.findIndex((c) => {
      const r = c.getBoundingClientRect();
      return e.clientX < r.left + Math.min(r.width / 2, 20);
    });
    if (idx < 0) idx = others.length;
    const list = others.map((c) => c.dataset.card);
    list.splice(idx, 0, d.card);
    saveOrder(list);
    renderHand();
  };
  els.hand.addEventListener('pointerup', end);
  els.hand.addEventListener('pointercancel', (e) => { if (drag && drag.el) { drag.el.classList.remove('dragging'); drag.el.style.translate = ''; } drag = null; void e; });
  els.hand.addEventListener('click', (e) => {
    const el = e.target.closest('.card');
    if (!el || el.dataset.dragged) return;
    onCard(el.dataset.card);
  });
  els.hand.addEventListener('focusin', (e) => {
    const el = e.target.closest('.card');
    if (el) S.focusCard = el.dataset.card;
  });
}

function moveFocus(delta) {
  const cards = [...els.hand.querySelectorAll('.card')];
  if (!cards.length) return;
  let i = cards.findIndex((c) => c.dataset.card === S.focusCard);
  if (Math.abs(delta) > 1) {
    i = delta < 0 ? 0 : cards.length - 1;
  } else if (document.activeElement && document.activeElement.closest && !document.activeElement.closest('#hand')) {
    i = Math.max(0, i);
  } else {
    i = Math.min(cards.length - 1, Math.max(0, (i < 0 ? 0 : i + delta)));
  }
  for (const c of cards) c.tabIndex = -1;
  cards[i].tabIndex = 0;
  cards[i].focus();
  S.focusCard = cards[i].dataset.card;
}

function chooseFocused() {
  if (S.focusCard) onCard(S.focusCard);
}

// ------------------------------------------------------------------ hint, accuse, leave, last trick

async function askHint() {
  if (S.hintBusy) return;
  S.hintBusy = true;
  renderActions();
  try {
    const res = await getJSON(`${API}/hint`);
    const v = view();
    if (!v) return;
    if (v.phase === 'passing' && res.cards && res.cards.length === 3) {
      S.passSel = new Set(res.cards);
      act('choose_pass', { cards: res.cards }).catch(() => {});
      // Said on the line above the hand, not in a toast that would cover PASAR.
      S.hintNote = { key: [...res.cards].sort().join(' '), text: `Pista: pasa ${res.cards.map(short).join(' ')}` };
      announce(S.hintNote.text);
    } else if (res.card) {
      S.selected = res.card;
      S.focusCard = res.card;
      S.hintNote = { key: res.card, text: `Pista: juega ${short(res.card)}. Tócala otra vez para jugarla.` };
      announce(`Pista: ${cardLabel(res.card)}`);
    }
    renderHand();
    renderActions();
  } catch (e) {
    if (e && e.status === 404) {
      S.noHint = true;   // this server has no hint route: stop offering it
      renderActions();
    }
    toast(e && e.status === 404 ? 'La pista todavía no está disponible en esta mesa' : (e.message || 'La pista no está disponible'), 'error');
  } finally {
    S.hintBusy = false;
    renderActions();
  }
}

function openAccuse() {
  const others = [0, 1, 2, 3].filter((s) => s !== mySeat());
  let chosen = null;
  const confirm = h('button.btn.btn-primary', { type: 'button', id: 'accuse-confirm', disabled: true, onclick: async () => {
    if (chosen == null) return;
    els.modal.close();
    try { await act('accuse', { accused: chosen }); } catch { /* toast shown */ }
  } }, 'Elige a quién');
  const list = h('div.accuse-list', { role: 'radiogroup', 'aria-label': 'A quién acusas' }, others.map((s) => h('button.btn.accuse-seat', {
    type: 'button', role: 'radio', 'aria-checked': 'false', dataset: { seat: String(s) },
    onclick: (e) => {
      chosen = s;
      for (const b of list.querySelectorAll('.accuse-seat')) b.setAttribute('aria-checked', b === e.currentTarget ? 'true' : 'false');
      confirm.disabled = false;
      confirm.textContent = `ACUSAR a ${seatName(s)}`;
    },
  }, seatName(s))));
  showModal('Acusar renuncio', h('div', null,
    h('p', null, '¿Quién no siguió el palo teniéndolo? La mesa juzga por las jugadas de esta ronda y la ronda termina en el acto: si es cierto, quien renunció se lleva 26 puntos; si es falso, los 26 son para ti.'),
    list, h('div.modal-actions', null, confirm, h('button.btn.btn-ghost', { type: 'button', 'data-close': '' }, 'Cancelar'))), 'accuse');
}

function confirmLeave() {
  showModal('¿Abandonar la mesa?', h('div', null,
    h('p', null, 'Dejas tu lugar en la mesa. La partida sigue sin ti.'),
    h('div.modal-actions', null,
      h('button.btn.btn-danger', { type: 'button', id: 'leave-confirm', onclick: async () => {
        els.modal.close();
        try { await act('leave'); location.href = '/'; } catch { /* toast shown */ }
      } }, 'ABANDONAR'),
      h('button.btn.btn-ghost', { type: 'button', 'data-close': '' }, 'Quedarme'))));
}

function trickView(tr, highlight) {
  const box = h('div.mini-trick');
  for (const p of tr.cards) {
    const c = cardEl(p.card, deck(), highlight === p.card ? 'evidence' : '');
    box.append(h('figure', { class: p.seat === tr.winner ? 'won' : '' }, c, h('figcaption', null, seatName(p.seat), p.seat === tr.winner ? ' ✓' : '')));
  }
  return box;
}

function showLastTrick() {
  const v = view();
  if (!v || !(v.tricks || []).length) return;
  const tr = v.tricks[v.tricks.length - 1];
  showModal(`Última baza (${tr.number} de 13)`, h('div', null, trickView(tr), h('p', null, `${tr.winner === mySeat() ? 'Te la llevaste tú' : `Se la llevó ${seatName(tr.winner)}`}.`)), 'last-trick');
}

// ------------------------------------------------------------------ overlays: counting and the end

function accusationBox(v, acc) {
  const evidence = [];
  const meAccuser = acc.accuser === mySeat();
  const meAccused = acc.accused === mySeat();
  const accuser = seatName(acc.accuser, { you: false });
  const accused = seatName(acc.accused, { you: false });
  const who = meAccuser ? `Acusaste a ${accused}` : meAccused ? `${accuser} te acusó` : `${accuser} acusó a ${accused}`;
  if (acc.guilty) {
    const tr = (v.tricks || []).find((t) => t.number === acc.trick);
    const led = tr ? tr.cards[0].card[1] : null;
    const played = meAccused ? 'jugaste' : `${accused} jugó`;
    const had = meAccused ? 'tenías' : 'tenía';
    const takes = meAccused ? 'Te llevas 26 puntos' : `${accused} se lleva 26 puntos`;
    evidence.push(h('p.ruling.guilty', null, `Renuncio comprobado: ${who}, y es cierto. En la baza ${acc.trick} ${played} ${short(acc.card)}${led ? ` cuando salió ${suitName(led)} y ${had} ${suitName(led)}` : ''}. ${takes}; los demás, cero.`));
    if (tr) evidence.push(trickView(tr, acc.card));
  } else {
    const followed = meAccused ? 'seguiste' : 'siguió';
    const takes = meAccuser ? 'Los 26 puntos son para ti' : `Los 26 puntos son para ${accuser}`;
    evidence.push(h('p.ruling.false', null, `Acusación falsa: ${who}, pero no hubo renuncio: ${followed} el palo en todas las bazas de la ronda. ${takes}.`));
  }
  return h('div.accusation', null, evidence);
}

function countingBox(v, final = false) {
  const r = v.hand_result;
  if (!r) return null;
  const rows = [0, 1, 2, 3].map((s) => {
    const taken = (r.taken_cards || [])[s] || [];
    const hearts = taken.filter((c) => c[1] === 'H');
    const queen = taken.includes('QS');
    const mini = h('span.taken', null, sortCards(taken).map((c) => h('span', { class: `mini-card suit-${c[1]}`, title: cardLabel(c) }, short(c))));
    return h('tr', { class: s === mySeat() ? 'me' : '' },
      h('th', { scope: 'row' }, seatName(s)),
      h('td.hearts', null, `${hearts.length} ♥`),
      h('td.queen', null, queen ? 'Q♠' : '—'),
      h('td.takenc', null, mini),
      h('td.add', null, `+${(r.scores || [])[s] ?? 0}`),
      h('td.total', null, String((v.totals || [])[s] ?? 0)));
  });
  const tableEl = h('table.count-table', null,
    h('thead', null, h('tr', null, h('th', null, ''), h('th', null, 'Corazones'), h('th', null, 'Q♠'), h('th.takenc', null, 'Se llevó'), h('th', null, 'Suma'), h('th', null, 'Total'))),
    h('tbody', null, rows));
  const parts = [h('h2.count-title', null, 'CONTANDO LOS PUNTOS'), h('p.count-sub', null, `Mano ${v.hand_number}${final ? ' · la última' : ''}`)];
  if (r.moon != null) parts.push(h('p.moon', null, `☾ ${seatName(r.moon)} ${r.moon === mySeat() ? 'le disparaste' : 'le disparó'} a la luna: ${r.moon === mySeat() ? 'quedas' : 'queda'} en cero y los otros tres suman 26.`));
  if (r.accusation) parts.push(accusationBox(v, r.accusation));
  parts.push(tableEl);
  return parts;
}

function renderOverlay() {
  const v = view();
  const t = table();
  const ov = els.overlay;
  if (heldByPress(ov)) return;
  if (!v || S.animating || S.queue.length) {
    if (!v || !['counting', 'game_over'].includes(v.phase)) { ov.hidden = true; ov.replaceChildren(); }
    return;
  }
  const key = `${t.game_number}:${v.hand_number}:${v.phase}:${S.version}`;
  if (v.phase === 'counting') {
    if (ov.dataset.key === key && !ov.hidden) return;
    ov.dataset.key = key;
    const parts = countingBox(v) || [];
    if (mySeat() != null) {
      parts.push(h('button.btn.btn-primary.btn-big', { type: 'button', id: 'next-hand', onclick: () => act('close_count').catch(() => {}) }, 'SIGUIENTE MANO'));
      if (v.can_accuse) parts.push(h('button.btn.btn-accuse', { type: 'button', onclick: openAccuse, html: `${ICONS.scale} ACUSAR` }));
    } else parts.push(h('p.watching', null, 'Esperando a que un jugador toque SIGUIENTE MANO.'));
    ov.className = 'overlay counting';
    ov.replaceChildren(h('div.overlay-card', { role: 'dialog', 'aria-modal': 'false', 'aria-label': 'Contando los puntos' }, parts));
    ov.hidden = false;
    const r = v.hand_result;
    if (r) announce(`Fin de la mano. ${[0, 1, 2, 3].map((s) => `${seatName(s)} suma ${r.scores[s]}, total ${v.totals[s]}`).join('. ')}`);
    return;
  }
  if (v.phase === 'game_over' && v.game_result) {
    const gk = `${t.game_number}:over:${(t.seats || []).map((s) => (s.wants_rematch ? 1 : 0)).join('')}:${(S.state.chat || []).length}`;
    if (ov.dataset.key === gk && !ov.hidden) return;
    const first = !ov.dataset.key || !ov.dataset.key.startsWith(`${t.game_number}:over`);
    ov.dataset.key = gk;
    ov.className = 'overlay game-over';
    ov.replaceChildren(endScene(v, t));
    if (first && !rm()) ov.append(confetti());
    ov.hidden = false;
    if (first && S.gameOverSounded !== String(t.game_number)) {
      S.gameOverSounded = String(t.game_number);
      sound.play('cornetita');
      const win = v.game_result.victory;
      if (mySeat() != null) setTimeout(() => sound.play(win ? 'win' : 'lose'), 1300);
      announce(queenLines(v, t).join(' '));
    }
    return;
  }
  ov.hidden = true;
  ov.replaceChildren();
  ov.dataset.key = '';
}

function confetti() {
  const box = h('div.confetti', { 'aria-hidden': 'true' });
  const marks = ['♥', '♦', '♣', '♠', '♥', '♥'];
  for (let i = 0; i < 36; i++) {
    const m = h('span', { class: `c${i % 4}` }, marks[i % marks.length]);
    m.style.left = `${Math.round(Math.random() * 100)}%`;
    m.style.animationDelay = `${(Math.random() * 1.2).toFixed(2)}s`;
    m.style.animationDuration = `${(2.2 + Math.random() * 1.8).toFixed(2)}s`;
    m.style.fontSize = `${14 + Math.round(Math.random() * 18)}px`;
    box.append(m);
  }
  setTimeout(() => box.remove(), 5000);
  return box;
}

function queenLines(v, t) {
  const g = v.game_result;
  const names = [0, 1, 2, 3].map((s) => seatInfo(s).name || seatName(s, { you: false }));
  return queenSays({ winners: g.winners, totals: g.totals, target: t.target || 100, names });
}

// The chat lines of the game on the table now: a line carries its game's number (`game`); without
// it, the lines after the last one this page saw before the game began.
function gameChat(t) {
  const chat = (S.state && S.state.chat) || [];
  const game = t.game_number || 1;
  const floor = S.gameFloor[game];
  return chat.filter((c) => (c.game != null ? c.game === game : floor == null || c.id > floor));
}

// A rated game's change for one seat, «1512 → 1527 (+15)» («?»: still provisional), linking to
// the player's page; nothing for an amistosa game or a seat that was not rated.
function ratingChange(seat) {
  const c = ((S.state && S.state.rating_changes) || []).find((r) => r.seat === seat);
  if (!c) return null;
  const q = c.provisional ? '?' : '';
  const sign = c.change > 0 ? '+' : (c.change < 0 ? '−' : '±');
  return h('a.rchange', { href: `/jugador/${encodeURIComponent(c.player)}`, class: c.change > 0 ? 'up' : (c.change < 0 ? 'down' : null) },
    h('span.sr-only', null, 'Clasificación: '), `${c.before} → ${c.after}${q} (${sign}${Math.abs(c.change)})`);
}

function endScene(v, t) {
  const g = v.game_result;
  const seated = mySeat() != null;
  const lines = queenLines(v, t);
  const parts = [];
  parts.push(h('div.queen-scene', null,
    h('div.queen-portrait', { html: queenSVG({ mood: 'wink', label: 'La Dama de Corazones' }) }),
    h('div.speech', null, lines.map((l) => h('p', null, l)))));
  if (seated) parts.push(h('p', { class: `verdict ${g.victory ? 'win' : 'lose'}` }, g.victory ? 'Victoria' : 'Derrota'));
  const rank = h('ol.ranking', null, g.ranking.map((s, i) => h('li', { class: `${g.winners.includes(s) ? 'winner' : ''} ${s === mySeat() ? 'me' : ''}` },
    h('span.place', null, g.winners.includes(s) ? '♛' : `${i + 1}.`),
    h('span.rname', null, seatName(s)),
    h('span.rtotal', null, pts(g.totals[s])),
    ratingChange(s),
    seatInfo(s).wants_rematch ? h('span.badge-ok', null, '¡Revancha!') : null)));
  parts.push(rank);
  if (t.rated === false) parts.push(h('p.rated-note', null, 'Partida amistosa: no mueve la clasificación.'));
  const last = countingBox(v, true);
  if (last) parts.push(h('details.last-hand', null, h('summary', null, 'La última mano'), last));
  parts.push(h('p.replay-row', null, replayLink(TABLE_ID, t.game_number), seated ? ' ' : null, seated ? analysisLink(TABLE_ID, t.game_number) : null));
  if (seated) {
    // ¡REVANCHA! first: the winner's taunt buttons follow it, never push it off the screen.
    const row = h('div.end-actions');
    const mine = seatInfo(mySeat());
    // A live table is one game: the next one is through the queue again.
    if (t.public) row.append(h('a.btn.btn-primary.btn-big.btn-rematch', { href: '/en-vivo', id: 'live-again' }, 'JUGAR EN VIVO OTRA VEZ'));
    else row.append(h('button.btn.btn-primary.btn-big.btn-rematch', {
      type: 'button', id: 'rematch-btn', disabled: !!mine.wants_rematch,
      onclick: () => act('rematch').catch(() => {}),
    }, mine.wants_rematch ? 'Esperando a los demás…' : '¡REVANCHA!'));
    if (g.victory && (t.taunts || []).length) {
      const taunts = h('div.taunts', { role: 'group', 'aria-labelledby': 'taunts-title' }, (t.taunts || []).map((tt) => h('button.btn.btn-small.btn-taunt', {
        type: 'button', onclick: () => act('taunt', { taunt_id: tt.id }).then(() => toast('Pulla enviada')).catch(() => {}),
      }, tt.text)));
      row.append(h('p.sub', { id: 'taunts-title' }, 'Pica a la mesa:'), taunts);
    }
    parts.push(row);
  }
  const chatTaunts = gameChat(t).filter((c) => c.kind === 'taunt').slice(-3);
  if (chatTaunts.length) parts.push(h('ul.taunt-log', null, chatTaunts.map((c) => h('li', null, h('b', null, `${c.name}: `), c.text))));
  return h('div.overlay-card', { role: 'dialog', 'aria-modal': 'false', 'aria-label': 'Fin de la partida' }, parts);
}

// ------------------------------------------------------------------ chat

function chatVisible() {
  return window.matchMedia('(min-width: 1000px) and (orientation: landscape)').matches || S.chatOpen;
}

function renderChat() {
  const chat = (S.state && S.state.chat) || [];
  const have = new Set([...els.chatLog.children].map((li) => li.dataset.id));
  for (const m of chat) {
    if (have.has(String(m.id))) continue;
    const li = h('li', { class: `msg ${m.kind === 'taunt' ? 'taunt' : ''} ${m.seat === mySeat() ? 'mine' : ''}`, dataset: { id: String(m.id) } },
      h('b', null, m.seat === mySeat() ? 'Tú' : m.name), ' ', h('span', null, m.text));
    els.chatLog.append(li);
    if (S.chatSeenInit && m.id > S.chatSeen && m.seat !== mySeat() && !chatVisible()) toast(`${m.name}: ${m.text}`);
  }
  if (have.size !== chat.length) els.chatLog.scrollTop = els.chatLog.scrollHeight;
  S.chatSeenInit = true;
  const maxId = chat.reduce((a, m) => Math.max(a, m.id), 0);
  if (chatVisible()) { S.chatSeen = maxId; store(`corazones.chatseen.${TABLE_ID}`, maxId); }
  const unread = chat.filter((m) => m.id > S.chatSeen && m.seat !== mySeat()).length;
  els.chatUnread.hidden = unread === 0;
  els.chatUnread.textContent = String(unread);
  els.chatBtn.setAttribute('aria-label', unread ? `Chat: ${unread} sin leer` : 'Chat');
  // A spectator reads the chat: a plain note says so, no greyed-out form.
  const canWrite = mySeat() != null;
  els.chatForm.hidden = !canWrite;
  els.chatInput.disabled = !canWrite;
  for (const b of els.chatForm.querySelectorAll('button')) b.disabled = !canWrite;
  $('#chat-note').hidden = canWrite;
}

function toggleChat(open) {
  S.chatOpen = open == null ? !S.chatOpen : open;
  els.app.classList.toggle('chat-open', S.chatOpen);
  els.chatBtn.setAttribute('aria-expanded', S.chatOpen ? 'true' : 'false');
  renderChat();
  if (S.chatOpen) els.chatInput.focus();
}

els.chatBtn.addEventListener('click', () => toggleChat());
$('#chat-close').addEventListener('click', () => toggleChat(false));
els.chatForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const text = els.chatInput.value.trim();
  if (!text) return;
  els.chatInput.value = '';
  try { await act('chat', { text }); } catch { els.chatInput.value = text; }
});

// ------------------------------------------------------------------ menu

function fullscreen() {
  if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
  else if (document.documentElement.requestFullscreen) document.documentElement.requestFullscreen().catch(() => {});
}

function toggleSound() {
  const on = sound.toggle();
  toast(on ? 'Sonido: sí' : 'Sonido: no');
  if (els.menu.open) renderMenu();
}

/** The four decks as radio buttons: `current()` is the chosen one, `choose(id)` picks one. */
function deckPicker(current, choose, id) {
  return h('div.deck-pick', { role: 'radiogroup', 'aria-label': 'Tu baraja', id }, DECKS.map((d) => h('button.deck-opt', {
    type: 'button', role: 'radio', 'aria-checked': current() === d.id ? 'true' : 'false', dataset: { deck: d.id },
    onclick: () => choose(d.id),
  }, h('span.deck-cards', { html: ['QH', 'AS', 'TD', 'KC'].map((c) => `<span class="card" data-deck="${d.id}">${faceSVG(c, d.id)}</span>`).join('') }), h('span.deck-name', null, d.name))));
}

async function setDeck(id) {
  S.deck = id;
  store('corazones.deck', id);
  render();
  renderMenu();
  // Stored by the server per device and seat; a spectator's choice lives in this browser only.
  act('set_deck', { deck: id }, { quiet: true }).catch(() => {});
}

// ------------------------------------------------------------------ avisos: static/js/notify.js
// («Avisarme cuando me toque», the menu's toggle, visibility reports, iOS home-screen help)

function renderMenu() {
  const m = me();
  const t = table();
  const parts = [];
  parts.push(h('p.menu-note', null, 'La mesa no se detiene mientras el menú está abierto.'));
  parts.push(h('div.menu-row', null,
    h('button.btn.menu-item', { type: 'button', id: 'menu-sound', 'aria-pressed': sound.enabled ? 'true' : 'false', onclick: toggleSound, html: `${sound.enabled ? ICONS.sound : ICONS.mute} Sonido: ${sound.enabled ? 'sí' : 'no'} <kbd>M</kbd>` }),
    h('button.btn.menu-item', { type: 'button', onclick: fullscreen, html: `${ICONS.expand} Pantalla completa <kbd>F</kbd>` })));
  const decks = deckPicker(deck, setDeck, 'menu-deck');
  parts.push(h('h3', null, 'Tu baraja'), h('p.menu-note', null, 'Cada quien elige la baraja que ve.'), decks);
  if (m.is_host) {
    const sel = h('select', { id: 'level-select', 'aria-label': 'Nivel de los robots' }, Object.entries(LEVELS).map(([k, name]) => h('option', { value: k, selected: t.robot_level === k }, name)));
    sel.addEventListener('change', () => act('set_level', { robot_level: sel.value }).then(() => toast(`Robots en ${LEVELS[sel.value]}: desde la próxima mano`)).catch(() => {}));
    parts.push(h('h3', null, 'Nivel de los robots'), h('label.menu-row', null, sel, h('span.menu-note', null, 'Se aplica desde la próxima mano.')));
  } else {
    parts.push(h('p.menu-note', null, `Robots: ${LEVELS[t.robot_level] || 'Normal'}`));
  }
  parts.push(...notifyMenuItems());
  parts.push(...clockMenu(S.state));
  parts.push(...recordsMenuItems(TABLE_ID, S.state, () => { if (els.menu.open) renderMenu(); }));
  const url = `${location.origin}/t/${TABLE_ID}`;
  parts.push(h('h3', null, 'Invitar'), h('div.link-row', null,
    h('input.link', { type: 'text', readonly: true, value: url, 'aria-label': 'Enlace de la mesa' }),
    h('button.btn', { type: 'button', onclick: async () => toast((await copyText(url)) ? 'Enlace copiado' : 'Copia el enlace a mano') }, 'COPIAR')));
  if (m.seat_link) {
    const priv = `${location.origin}${m.seat_link}`;
    parts.push(h('p.menu-note', null, 'Tu enlace privado, para seguir en otro dispositivo (no lo compartas):'), h('div.link-row', null,
      h('input.link', { type: 'text', readonly: true, value: priv, 'aria-label': 'Tu enlace privado' }),
      h('button.btn', { type: 'button', onclick: async () => toast((await copyText(priv)) ? 'Enlace privado copiado' : 'Cópialo a mano') }, 'COPIAR')));
  }
  parts.push(h('div.menu-row', null,
    h('button.btn.menu-item', { type: 'button', onclick: () => { els.menu.close(); openDialog($('#rules-dialog')); } }, 'Cómo se juega'),
    h('a.btn.menu-item', { href: '/' }, 'Abrir otra mesa')));
  if (mySeat() != null && t.status !== 'lobby') {
    parts.push(h('button.btn.btn-danger.menu-item', { type: 'button', id: 'menu-leave', onclick: () => { els.menu.close(); confirmLeave(); } }, 'ABANDONAR'));
  } else if (mySeat() != null) {
    parts.push(h('button.btn.btn-ghost.menu-item', { type: 'button', onclick: () => act('leave').then(() => { location.href = '/'; }).catch(() => {}) }, 'Dejar el lugar'));
  }
  els.menuBody.replaceChildren(...parts);
}

function openMenu() {
  if (els.menu.open) { els.menu.close(); return; }
  renderMenu();
  openDialog(els.menu);
}
$('#menu-btn').addEventListener('click', openMenu);

// ------------------------------------------------------------------ turn notice

function noticeTurn() {
  const v = view();
  if (!v) return;
  const key = `${S.state.table.game_number}:${v.hand_number}:${v.phase}:${v.turn}:${(v.tricks || []).length}:${v.trick.length}`;
  if (key === S.lastTurnKey) return;
  S.lastTurnKey = key;
  if (v.phase === 'playing' && v.turn != null) {
    if (v.turn === mySeat()) {
      sound.play('turn');
      announce('Te toca');
    } else announce(`Le toca a ${seatName(v.turn)}`);
  } else if (v.phase === 'passing' && S.lastPhaseKey !== `${v.hand_number}:passing`) {
    announce(v.pass_direction === 'none' ? 'Esta mano no se pasa' : `Mano ${v.hand_number}: elige 3 cartas para pasar ${PASS_SHORT[v.pass_direction]}`);
  }
  S.lastPhaseKey = `${v.hand_number}:${v.phase}`;
}

// ------------------------------------------------------------------ wiring

els.felt.addEventListener('click', (e) => {
  if (e.target.closest('button, input, a, form')) return;
  if (S.animating) S.skip = true;
});
els.pile.addEventListener('click', (e) => { e.stopPropagation(); if (S.animating) S.skip = true; showLastTrick(); });

setupHandPointer();
setupInput({
  moveFocus,
  chooseFocused,
  openMenu,
  toggleSound,
  fullscreen,
  isMenuOpen: () => els.menu.open || els.modal.open || $('#rules-dialog').open,
});

let resizeTimer = 0;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => { layoutHand(); renderChat(); }, 60);
});

S.deck = store('corazones.deck');
setupNotify({ tableId: TABLE_ID, api: API, onChange: () => { if (els.menu.open) renderMenu(); } });
loadState().then(follow).catch((e) => {
  els.hintLine.textContent = e && e.status === 404 ? 'Esta mesa no existe.' : 'No se pudo abrir la mesa. Reintentando…';
  setTimeout(() => location.reload(), 4000);
});
