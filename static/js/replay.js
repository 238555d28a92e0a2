// Repetición: a finished game hand by hand and trick by trick, all four hands face up, the passes
// drawn and the running scores; or, in review mode, the completed hands of the game in play as
// this seat saw them (its own cards and passes only). Data: docs/RECORDS.md.
import { $, h, cardEl, short, sortCards, PASS_SHORT } from './util.js';
import { getJSON } from './api.js';

const body = document.body.dataset;
const REVIEW = body.mode === 'review';
const DECK = body.deck || 'reino';
const POS = ['bottom', 'left', 'top', 'right'];
const SUIT_CLASS = { C: 'clubs', D: 'diamonds', H: 'hearts', S: 'spades' };

const S = { rec: null, steps: [], i: 0, base: 0 };

// ------------------------------------------------------------------ the steps of the game

/** Every position of the replay, in order: each hand's deal, its pass, each trick, its result. */
function buildSteps(rec) {
  const steps = [];
  rec.hands.forEach((hand, hi) => {
    steps.push({ hi, kind: 'deal', tricks: 0 });
    if (hand.pass !== 'none' && hand.passes.length) steps.push({ hi, kind: 'pass', tricks: 0 });
    hand.tricks.forEach((t, ti) => steps.push({ hi, kind: 'trick', tricks: ti + 1 }));
    if (hand.unfinished_trick && hand.unfinished_trick.length) steps.push({ hi, kind: 'unfinished', tricks: hand.tricks.length });
    steps.push({ hi, kind: 'result', tricks: hand.tricks.length });
  });
  return steps;
}

function seatAt(pos) { return (S.base + POS.indexOf(pos)) % 4; }
function posOf(seat) { return POS[(seat - S.base + 4) % 4]; }

function playerName(hand, seat) {
  const p = (hand && hand.players && hand.players[seat]) || (S.rec.seats || [])[seat] || {};
  return p.label || `Asiento ${seat + 1}`;
}

/** The cards played in ``hand`` up to this step (after the pass). */
function playedUpTo(hand, step) {
  const n = step.kind === 'unfinished' || step.kind === 'result'
    ? hand.plays.length : step.tricks * 4;
  return hand.plays.slice(0, n);
}

/** What each seat holds at this step (null: not known to this viewer). */
function holdings(hand, step) {
  const before = step.kind === 'deal' || step.kind === 'pass';
  const start = before ? hand.dealt : (hand.held || hand.dealt);
  const gone = new Set(before ? [] : playedUpTo(hand, step).map((p) => p.card));
  return [0, 1, 2, 3].map((s) => (start[s] ? sortCards(start[s].filter((c) => !gone.has(c))) : null));
}

function pointsSoFar(hand, step) {
  const pts = [0, 0, 0, 0];
  const upto = step.kind === 'deal' || step.kind === 'pass' ? 0 : step.tricks;
  for (const t of hand.tricks.slice(0, upto)) pts[t.winner] += t.points;
  return pts;
}

function totalsBefore(hi) {
  return hi === 0 ? [0, 0, 0, 0] : S.rec.hands[hi - 1].totals;
}

function passWord(dir) { return PASS_SHORT[dir] || dir; }

// ------------------------------------------------------------------ drawing

function chips(cards, cls = '') {
  return h('ul.rp-cards', { class: cls }, cards.map((c) => h('li', { class: `rp-chip ${SUIT_CLASS[c[1]]}`, dataset: { card: c } }, short(c))));
}

function renderSeat(pos, hand, step, held, pts, passed, received) {
  const seat = seatAt(pos);
  const box = $(`.rp-seat[data-pos='${pos}']`);
  const cards = held[seat];
  const played = playedUpTo(hand, step).filter((p) => p.seat === seat).length;
  const count = 13 - (step.kind === 'deal' || step.kind === 'pass' ? 0 : played);
  const total = totalsBefore(step.hi)[seat] + (step.kind === 'result' ? hand.scores[seat] : 0);
  const mine = REVIEW && seat === S.rec.seat;
  const standin = (S.rec.standins || []).some((sp) => sp.seat === seat && covers(sp, hand.number, step));
  const label = h('div.rp-name', null,
    h('b', null, playerName(hand, seat)),
    mine ? h('span.rp-you', null, ' (tú)') : null,
    standin ? h('span.rp-tag', null, 'juega un robot') : null,
    h('span.rp-pts', null, `${pts[seat]} en la mano · ${total} en total`));
  const parts = [label];
  if (cards) {
    const el = chips(cards);
    for (const li of el.children) {
      if (passed.has(li.dataset.card) && step.kind === 'pass') li.classList.add('rp-passing');
      if (received.has(`${seat}:${li.dataset.card}`) && step.kind !== 'deal' && step.kind !== 'pass') li.classList.add('rp-received');
    }
    parts.push(el);
  } else {
    parts.push(h('p.rp-count', null, count === 1 ? '1 carta' : `${count} cartas`));
  }
  box.className = `rp-seat rp-${pos}-seat`;
  box.replaceChildren(...parts);
}

function covers(span, handNumber, step) {
  const at = { hand: handNumber, card: step.kind === 'deal' || step.kind === 'pass' ? 0 : step.tricks * 4 };
  const after = (a, b) => a.hand > b.hand || (a.hand === b.hand && a.card >= b.card);
  return after(at, span.from) && (span.to == null || !after(at, span.to));
}

function renderCenter(hand, step) {
  const c = $('#rp-center');
  const name = (s) => playerName(hand, s);
  if (step.kind === 'deal') {
    c.replaceChildren(h('div.rp-msg', null,
      h('p.rp-big', null, `Mano ${hand.number}`),
      h('p', null, hand.pass === 'none' ? 'Sin pase: se juega con lo repartido.' : `Reparto. Se pasan 3 cartas ${passWord(hand.pass)}.`)));
    return;
  }
  if (step.kind === 'pass') {
    const rows = hand.passes.map((p) => h('li.rp-pass', { dataset: { from: p.from, to: p.to } },
      h('span.rp-arrow', { class: `to-${posOf(p.to)} from-${posOf(p.from)}`, 'aria-hidden': 'true' }, arrowFor(p.from, p.to)),
      h('span', null, `${name(p.from)} → ${name(p.to)}: `),
      chips(p.cards, 'rp-inline')));
    c.replaceChildren(h('div.rp-msg', null, h('p.rp-big', null, `El pase, ${passWord(hand.pass)}`), h('ul.rp-passes', null, rows)));
    return;
  }
  if (step.kind === 'trick' || step.kind === 'unfinished') {
    const t = step.kind === 'trick' ? hand.tricks[step.tricks - 1] : { cards: hand.unfinished_trick, winner: null, number: hand.tricks.length + 1 };
    const slots = POS.map((pos) => {
      const i = t.cards.findIndex((x) => posOf(x.seat) === pos);
      const slot = h('div', { class: `rp-slot rp-slot-${pos}` });
      if (i >= 0) {
        const card = cardEl(t.cards[i].card, DECK, t.winner === t.cards[i].seat ? 'rp-win' : '');
        card.setAttribute('role', 'img');
        card.setAttribute('aria-label', `${name(t.cards[i].seat)}: ${short(t.cards[i].card)}`);
        slot.append(card, h('span.rp-order', { 'aria-hidden': 'true' }, String(i + 1)));
      }
      return slot;
    });
    const caption = t.winner == null
      ? 'La baza quedó a medias: hubo una acusación.'
      : `Baza ${t.number}: se la lleva ${name(t.winner)}${t.points ? ` (+${t.points})` : ''}`;
    c.replaceChildren(h('div.rp-trick', null, ...slots), h('p.rp-caption', null, caption));
    return;
  }
  // result
  const lines = [];
  const acc = hand.accusation;
  if (acc) {
    lines.push(h('p.rp-ruling', null, acc.guilty
      ? `${name(acc.accuser)} acusó a ${name(acc.accused)} de renuncio: era cierto${acc.card ? ` (${short(acc.card)} en la baza ${acc.trick})` : ''}. ${name(acc.accused)} se lleva 26.`
      : `${name(acc.accuser)} acusó a ${name(acc.accused)} de renuncio: no era cierto. ${name(acc.accuser)} se lleva 26.`));
  }
  if (hand.moon != null) lines.push(h('p.rp-ruling', null, `¡${name(hand.moon)} le disparó a la luna! Los demás suman 26.`));
  const before = totalsBefore(step.hi);
  const table = h('table.rp-result', null,
    h('caption', null, `Fin de la mano ${hand.number}`),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Jugador'), h('th', { scope: 'col' }, 'Suma'), h('th', { scope: 'col' }, 'Total'))),
    h('tbody', null, [0, 1, 2, 3].map((s) => h('tr', null,
      h('th', { scope: 'row' }, name(s)), h('td', null, `+${hand.scores[s]}`), h('td', null, String(before[s] + hand.scores[s]))))));
  const last = step.hi === S.rec.hands.length - 1;
  if (last && S.rec.finished && S.rec.winners && S.rec.winners.length) {
    lines.push(h('p.rp-big', null, `${S.rec.winners.length > 1 ? 'Ganan' : 'Gana'} ${S.rec.winners.map(name).join(' y ')}`));
  }
  c.replaceChildren(h('div.rp-msg', null, table, ...lines));
}

function arrowFor(from, to) {
  const d = (to - from + 4) % 4;
  return d === 1 ? '↰' : d === 3 ? '↱' : '↕';
}

function renderBoard(step) {
  const rec = S.rec;
  const hand = rec.hands[step.hi];
  const nick = (s) => playerName(hand, s).replace(/^ROBOT /, '');
  const head = h('tr', null, h('th', { scope: 'col' }, 'Mano'), [0, 1, 2, 3].map((s) => h('th', { scope: 'col', title: playerName(hand, s) }, nick(s))));
  const rows = rec.hands.map((hd, i) => h('tr', { class: i === step.hi ? 'rp-current' : '' },
    h('th', { scope: 'row' }, h('button.rp-jump', { type: 'button', dataset: { hand: String(i) }, 'aria-label': `Ir a la mano ${hd.number}` }, String(hd.number))),
    [0, 1, 2, 3].map((s) => h('td', null, i < step.hi || (i === step.hi && step.kind === 'result') ? String(hd.totals[s]) : '·'))));
  $('#rp-board').replaceChildren(h('table.rp-totals', null, h('thead', null, head), h('tbody', null, rows)));
}

function renderEvents(hand) {
  const list = (S.rec.events || []).filter((e) => e.hand === hand.number);
  const words = {
    leave: (e) => `${e.name} abandonó; ROBOT ${e.robot} juega su lugar.`,
    sit: (e) => `${e.name} se sentó en el lugar que había quedado libre.`,
    standin: (e) => `Un robot empezó a jugar por ${e.name}.`,
    take_back: (e) => `${e.name} volvió a jugar.`,
  };
  $('#rp-events').hidden = !list.length;
  $('#rp-events-list').replaceChildren(...list.map((e) => h('li', null, (words[e.type] || (() => e.type))(e))));
}

function stepLabel(hand, step) {
  if (step.kind === 'deal') return `Mano ${hand.number}: el reparto`;
  if (step.kind === 'pass') return `Mano ${hand.number}: el pase`;
  if (step.kind === 'trick') return `Mano ${hand.number}: baza ${step.tricks} de ${hand.tricks.length}`;
  if (step.kind === 'unfinished') return `Mano ${hand.number}: la baza a medias`;
  return `Mano ${hand.number}: la cuenta`;
}

function render() {
  const step = S.steps[S.i];
  const hand = S.rec.hands[step.hi];
  const held = holdings(hand, step);
  const pts = step.kind === 'result' ? hand.scores : pointsSoFar(hand, step);
  const passed = new Set(hand.passes.flatMap((p) => p.cards));
  const received = new Set(hand.passes.flatMap((p) => p.cards.map((c) => `${p.to}:${c}`)));
  for (const pos of POS) renderSeat(pos, hand, step, held, pts, passed, received);
  renderCenter(hand, step);
  renderBoard(step);
  renderEvents(hand);
  $('#rp-legend').hidden = !hand.passes.length || step.kind === 'deal';
  renderFair(hand);
  const label = stepLabel(hand, step);
  $('#rp-step').textContent = label;
  $('#rp-meta').textContent = `Partida ${S.rec.game_number} · mano ${hand.number} de ${S.rec.hands.length} · ${hand.pass === 'none' ? 'sin pase' : `pase ${passWord(hand.pass)}`}`;
  Object.assign(document.body.dataset, { hand: String(hand.number), step: String(S.i), kind: step.kind, tricks: String(step.tricks) });
  $('#rp-prev').disabled = S.i === 0;
  $('#rp-prev-hand').disabled = step.hi === 0 && S.i === 0;
  $('#rp-next').disabled = S.i === S.steps.length - 1;
  $('#rp-next-hand').disabled = step.hi === S.rec.hands.length - 1 && S.i === S.steps.length - 1;
  history.replaceState(null, '', `#paso-${S.i}`);
  document.dispatchEvent(new CustomEvent('replay:step'));  // analysis.js follows the step
}

// ------------------------------------------------------------------ «Verificar el reparto»

/** The section follows the hand on show; a verdict stays while its hand is on show. */
function renderFair(hand) {
  $('#rp-fair-hand').textContent = String(hand.number);
  const out = $('#rp-verify-out');
  if (out.dataset.hand !== String(hand.number)) {
    out.replaceChildren();
    out.dataset.state = '';
    out.dataset.hand = String(hand.number);
    $('#rp-verify-status').textContent = '';
  }
}

/** Who played each seat in this hand: the names the verdict shows, robots told apart. */
function seatsOf(hand) {
  return [0, 1, 2, 3].map((s) => {
    const p = (hand.players && hand.players[s]) || (S.rec.seats || [])[s] || {};
    return { name: playerName(hand, s), robot: p.kind === 'robot' };
  });
}

/** Fetch and verify the deal of the hand on show (deal-panel.js loads on the first click). */
async function verifyDeal() {
  const hand = S.rec.hands[S.steps[S.i].hi];
  const out = $('#rp-verify-out');
  const btn = $('#rp-verify');
  const box = h('div');
  btn.disabled = true;
  out.dataset.state = 'loading';
  out.replaceChildren(h('p.rp-verify-note', null, 'Comprobando el reparto…'));
  try {
    const { showDeal } = await import('./deal-panel.js');
    await showDeal(box, {
      url: `${body.deals}/${S.rec.game_number}/${hand.number}`,
      seats: seatsOf(hand),
      reviewSeat: REVIEW && S.rec.seat != null ? S.rec.seat : null,
    });
  } catch {
    box.dataset.state = 'error';
    box.replaceChildren(h('p.rp-verify-note', null, 'No se pudo verificar el reparto en este navegador.'));
  } finally {
    btn.disabled = false;
  }
  if (out.dataset.hand !== String(hand.number)) return; // another hand is on show by now
  out.dataset.state = box.dataset.state;
  out.replaceChildren(...box.childNodes);
  // A short line for screen readers: the verdict, not the whole list.
  const verdict = out.querySelector('.rp-verify-verdict, .rp-verify-note');
  const lines = out.querySelectorAll('.rp-verify-failures li').length;
  $('#rp-verify-status').textContent = `Mano ${hand.number}: ${verdict ? verdict.textContent : ''}`
    + (lines ? ` ${lines === 1 ? 'Falla una comprobación.' : `Fallan ${lines} comprobaciones.`}` : '');
}

// ------------------------------------------------------------------ moving

function go(i) {
  const next = Math.max(0, Math.min(S.steps.length - 1, i));
  if (next === S.i && S.steps.length) return;
  S.i = next;
  render();
}

function goHand(delta) {
  const hi = S.steps[S.i].hi;
  if (delta < 0) {
    const first = S.steps.findIndex((s) => s.hi === hi);
    go(S.i > first ? first : S.steps.findIndex((s) => s.hi === hi - 1));
  } else {
    const next = S.steps.findIndex((s) => s.hi === hi + 1);
    go(next < 0 ? S.steps.length - 1 : next);
  }
}

function jumpToHand(hi) { go(S.steps.findIndex((s) => s.hi === hi)); }

// Another module (analysis.js) moves the replay to a hand's pass or one of its tricks.
document.addEventListener('replay:go', (e) => {
  const d = e.detail || {};
  const i = S.steps.findIndex((s) => S.rec.hands[s.hi].number === d.hand && s.kind === d.kind
    && (d.kind !== 'trick' || s.tricks === d.tricks));
  if (i >= 0) go(i);
});

function bindControls() {
  $('#rp-verify').addEventListener('click', verifyDeal);
  $('#rp-next').addEventListener('click', () => go(S.i + 1));
  $('#rp-prev').addEventListener('click', () => go(S.i - 1));
  $('#rp-next-hand').addEventListener('click', () => goHand(1));
  $('#rp-prev-hand').addEventListener('click', () => goHand(-1));
  $('#rp-board').addEventListener('click', (e) => {
    const b = e.target.closest('.rp-jump');
    if (b) jumpToHand(Number(b.dataset.hand));
  });
  document.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || !S.steps.length) return;
    if (e.target.closest && e.target.closest('input, select, textarea, dialog')) return;
    const keys = {
      ArrowRight: () => go(S.i + 1), ArrowLeft: () => go(S.i - 1),
      ArrowDown: () => goHand(1), PageDown: () => goHand(1),
      ArrowUp: () => goHand(-1), PageUp: () => goHand(-1),
      Home: () => go(0), End: () => go(S.steps.length - 1),
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  // Swipe the felt: to the left goes forward, to the right goes back.
  const felt = $('#rp-felt');
  let start = null;
  felt.addEventListener('pointerdown', (e) => { start = { x: e.clientX, y: e.clientY }; });
  felt.addEventListener('pointerup', (e) => {
    if (!start) return;
    const dx = e.clientX - start.x;
    const dy = e.clientY - start.y;
    start = null;
    if (Math.abs(dx) > 40 && Math.abs(dx) > Math.abs(dy) * 1.5) go(S.i + (dx < 0 ? 1 : -1));
  });
  felt.addEventListener('pointercancel', () => { start = null; });
}

function fail(message) {
  $('#rp-step').textContent = message;
  $('#rp-felt').hidden = true;
  for (const id of ['#rp-next', '#rp-prev', '#rp-next-hand', '#rp-prev-hand']) $(id).disabled = true;
  $('#rp-fair').hidden = true;
  document.body.dataset.kind = 'error';
}

async function main() {
  bindControls();
  let rec;
  try {
    rec = await getJSON(body.src);
  } catch (err) {
    if (err && err.code === 'game_over') { location.replace(`${body.tableUrl}/partidas/${body.game}`); return; }
    fail((err && err.message) || 'No se pudo cargar la partida.');
    return;
  }
  S.rec = rec;
  S.base = REVIEW && rec.seat != null ? rec.seat : 0;
  S.steps = buildSteps(rec);
  if (!S.steps.length) {
    fail(REVIEW ? 'Todavía no terminó ninguna mano de esta partida: vuelve cuando se cierre la primera cuenta.' : 'Esta partida no tiene manos.');
    return;
  }
  const m = /^#paso-(\d+)$/.exec(location.hash);
  S.i = m ? Math.min(Number(m[1]), S.steps.length - 1) : 0;
  render();
}

main();
