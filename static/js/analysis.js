// Análisis on the Repetición page: a player asks Difícil to review their decisions in this game
// (the pass and every card, from what they could see then); while it runs a calm progress line,
// then the decisions that cost a point or more, each shown at its moment of the replay with the
// better choice, the expected points of each and the reason. API: docs/ANALYSIS.md.
import { $, h, short } from './util.js';
import { getJSON, postJSON } from './api.js';

const body = document.body.dataset;
const URL_ = `/api/tables/${body.tableUrl.split('/').pop()}/games/${body.game}/analysis`;
const POLL_MS = 2500;
const A = { data: null, timer: 0, asked: false };

const num = (x) => (Math.round(x * 10) / 10).toFixed(1).replace('.', ',');
const pts = (x) => `${num(x)} ${Math.abs(x - 1) < 0.05 ? 'punto' : 'puntos'}`;
const cardsText = (cs) => (Array.isArray(cs) ? cs.map(short).join(' ') : short(cs));

/** Where a decision is in the replay: its hand's pass, or the trick its card went to. */
function placeOf(d) {
  return d.kind === 'pass' ? { hand: d.hand, kind: 'pass', tricks: 0 }
    : { hand: d.hand, kind: 'trick', tricks: Math.floor(d.index / 4) + 1 };
}

function placeText(d) {
  const p = placeOf(d);
  return d.kind === 'pass' ? `Mano ${d.hand}, el pase` : `Mano ${d.hand}, baza ${p.tricks}`;
}

function marked() {
  return ((A.data && A.data.decisions) || []).filter((d) => d.done && d.marked);
}

function optionPoints(d, choice) {
  const key = JSON.stringify(choice);
  const o = (d.options || []).find((x) => JSON.stringify(d.kind === 'pass' ? x.cards : x.card) === key);
  return o ? o.points : null;
}

// ------------------------------------------------------------------ the panel

function drawPanel() {
  const panel = $('#an-panel');
  const box = $('#an-body');
  const d = A.data;
  if (!d || (d.status === 'none' && !d.player)) { panel.hidden = true; return; }
  panel.hidden = false;
  if (d.status === 'none') {
    box.replaceChildren(
      h('p', null, 'Difícil repasa cada una de tus decisiones (el pase y cada carta) con lo que veías en ese momento, y te marca las que te costaron un punto o más.'),
      h('button.btn.btn-primary', { type: 'button', id: 'an-ask', onclick: ask }, 'Pedir el análisis'));
    return;
  }
  if (d.status !== 'done') {
    box.replaceChildren(
      h('p.an-working', null, 'Analizando tu partida…'),
      h('progress.an-progress', { max: String(Math.max(1, d.total)), value: String(d.done), 'aria-label': 'Decisiones analizadas' }),
      h('p.an-count', null, `${d.done} de ${d.total} decisiones. Puedes seguir mirando la repetición: se completa solo.`));
    return;
  }
  const list = marked();
  if (!d.total) {
    box.replaceChildren(h('p', null, 'En esta partida no hay decisiones tuyas para analizar: un robot jugó por ti.'));
    return;
  }
  const parts = [h('p', null, list.length
    ? `Difícil marcó ${list.length} de tus ${d.total} decisiones: las que te costaron, en promedio, un punto o más.`
    : `Ninguna de tus ${d.total} decisiones te costó un punto o más en promedio. ¡Bien jugado!`)];
  if (list.length) {
    parts.push(h('ol.an-list', null, list.map((m) => h('li', null, h('button.an-go', {
      type: 'button', onclick: () => goTo(m),
    }, h('span.an-where', null, placeText(m)),
    h('span', null, ` · ${m.kind === 'pass' ? 'pasaste' : 'jugaste'} ${cardsText(m.chosen)}, mejor ${cardsText(m.best)} (+${num(m.cost)})`))))));
  }
  box.replaceChildren(...parts);
}

// ------------------------------------------------------------------ the note at a marked moment

/** Move the replay to a marked decision and bring its note into view. */
function goTo(m) {
  document.dispatchEvent(new CustomEvent('replay:go', { detail: placeOf(m) }));
  const note = $('#an-note');
  if (!note.hidden) note.scrollIntoView({ block: 'nearest' });
}

function drawNote() {
  const note = $('#an-note');
  const at = { hand: Number(body.hand), kind: body.kind, tricks: Number(body.tricks) };
  const here = marked().filter((m) => {
    const p = placeOf(m);
    return p.hand === at.hand && p.kind === at.kind && (p.kind !== 'trick' || p.tricks === at.tricks);
  });
  if (!here.length) { note.hidden = true; note.replaceChildren(); return; }
  note.hidden = false;
  note.replaceChildren(h('h2', null, 'Análisis'), ...here.map((m) => {
    const mine = optionPoints(m, m.chosen);
    const best = optionPoints(m, m.best);
    const verb = m.kind === 'pass' ? 'Pasaste' : 'Jugaste';
    return h('div.an-item', null,
      h('p', null, h('b', null, `${verb} ${cardsText(m.chosen)}`), mine != null ? `: ${pts(mine)} en promedio.` : '.'),
      h('p', null, h('b.an-better', null, `Mejor: ${cardsText(m.best)}`), best != null ? `: ${pts(best)} en promedio.` : '.'),
      m.reason ? h('p.an-reason', null, m.reason) : null,
      m.kind === 'play' && m.options && m.options.length > 2
        ? h('p.an-options', null, 'Cada carta: ', m.options.map((o) => `${short(o.card)} ${num(o.points)}`).join(' · '))
        : null);
  }));
}

// ------------------------------------------------------------------ asking and following

function schedule() {
  clearTimeout(A.timer);
  if (A.data && (A.data.status === 'queued' || A.data.status === 'running')) {
    A.timer = setTimeout(load, POLL_MS);
  }
}

function show(data) {
  A.data = data;
  drawPanel();
  drawNote();
  schedule();
}

async function load() {
  try {
    show(await getJSON(URL_));
  } catch {
    A.timer = setTimeout(load, POLL_MS * 4);
  }
}

async function ask() {
  if (A.asked) return;
  A.asked = true;
  const btn = $('#an-ask');
  if (btn) btn.disabled = true;
  try {
    show({ ...(await postJSON(URL_, {})), player: true });
  } catch (err) {
    A.asked = false;
    $('#an-body').append(h('p.form-error', { role: 'alert' }, (err && err.message) || 'No se pudo pedir el análisis.'));
    if (btn) btn.disabled = false;
  }
}

document.addEventListener('replay:step', drawNote);

async function main() {
  await load();
  if (A.data && A.data.status === 'none' && A.data.player && new URLSearchParams(location.search).get('analisis') === '1') {
    await ask();
  }
}

main();
