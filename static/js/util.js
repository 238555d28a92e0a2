// Small DOM and wording helpers shared by the pages.
import { cardSVG, cardBackSVG, suitSymbol, cardLabel } from './decks.js';

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

/** Create an element: h('button.btn.primary', {type: 'button', onclick}, 'text', child). */
export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split('.');
  const el = document.createElement(name || 'div');
  if (classes.length) el.className = classes.join(' ');
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v == null || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') on(el, k.slice(2), v);
      else if (k === 'html') el.innerHTML = v;
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k === 'class') el.className += (el.className ? ' ' : '') + v;
      else if (v === true) el.setAttribute(k, '');
      else el.setAttribute(k, v);
    }
  }
  for (const c of children.flat()) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// An element's handlers from h() are kept by name, so that keepElements can hand an element
// kept on the page the handlers of the one drawn in its place.
function on(el, type, fn) {
  el.handlers ??= {};
  if (!(type in el.handlers)) el.addEventListener(type, (e) => el.handlers[type](e));
  el.handlers[type] = fn;
}

/**
 * Put ``nodes`` in ``parent`` in that order, keeping in place the elements already there with
 * the id of a new one (the new one's attributes, content and handlers move into it). A click
 * reaches a button only if the pointer went down and up on the same element: a redraw that
 * replaced it between the two would lose the tap.
 */
export function keepElements(parent, nodes) {
  const old = new Map([...parent.children].filter((e) => e.id).map((e) => [e.id, e]));
  const wanted = nodes.map((n) => {
    const was = n.id ? old.get(n.id) : null;
    if (!was || was.tagName !== n.tagName) return n;
    for (const a of [...was.attributes]) if (!n.hasAttribute(a.name)) was.removeAttribute(a.name);
    for (const a of [...n.attributes]) if (was.getAttribute(a.name) !== a.value) was.setAttribute(a.name, a.value);
    if (was.innerHTML !== n.innerHTML) was.replaceChildren(...n.childNodes);
    for (const [type, fn] of Object.entries(n.handlers || {})) on(was, type, fn);
    for (const type of Object.keys(was.handlers || {})) {
      if (!(n.handlers && type in n.handlers)) was.handlers[type] = () => {};
    }
    return was;
  });
  // The ones that go first, then the new ones inserted: a kept element moves only when the
  // order itself changed.
  const keep = new Set(wanted);
  for (const c of [...parent.children]) if (!keep.has(c)) c.remove();
  wanted.forEach((n, i) => { if (parent.children[i] !== n) parent.insertBefore(n, parent.children[i] || null); });
}

const svgCache = new Map();
export function faceSVG(card, deck) {
  const k = `${deck}:${card}`;
  let s = svgCache.get(k);
  if (!s) { s = cardSVG(card, deck); svgCache.set(k, s); }
  return s;
}
export function backSVG(deck) {
  const k = `${deck}:back`;
  let s = svgCache.get(k);
  if (!s) { s = cardBackSVG(deck); svgCache.set(k, s); }
  return s;
}

/** A card element (not interactive). */
export function cardEl(card, deck, cls = '') {
  const el = h(`div.card${cls ? '.' + cls : ''}`, { dataset: { card, deck } });
  el.innerHTML = faceSVG(card, deck);
  return el;
}

/** "QS" -> "Q♠", "TH" -> "10♥". */
export function short(card) {
  const r = card[0] === 'T' ? '10' : card[0];
  return r + suitSymbol(card[1]);
}
export { cardLabel };

export const SUIT_ORDER = { C: 0, D: 1, S: 2, H: 3 };
export const RANK_ORDER = '23456789TJQKA';
export function sortCards(cards) {
  return [...cards].sort((a, b) => (SUIT_ORDER[a[1]] - SUIT_ORDER[b[1]]) || (RANK_ORDER.indexOf(a[0]) - RANK_ORDER.indexOf(b[0])));
}

export const LEVELS = { facil: 'Fácil', normal: 'Normal', dificil: 'Difícil' };
export const PASS_WORDS = {
  left: 'Pasar a la izquierda',
  right: 'Pasar a la derecha',
  across: 'Pasar al de enfrente',
};
export const PASS_SHORT = { left: 'a la izquierda', right: 'a la derecha', across: 'al de enfrente', none: 'sin pase' };

export function store(key, value) {
  try {
    if (value === undefined) return JSON.parse(localStorage.getItem(key) || 'null');
    localStorage.setItem(key, JSON.stringify(value));
  } catch { /* storage may be unavailable */ }
  return value;
}

export function reducedMotion() {
  return window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = h('textarea', { readonly: true }, text);
    ta.className = 'offscreen';
    document.body.append(ta);
    ta.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    ta.remove();
    return ok;
  }
}

/** Open a <dialog> modally, wiring its [data-close] buttons once. */
export function openDialog(d) {
  if (!d.dataset.wired) {
    d.dataset.wired = '1';
    d.addEventListener('click', (e) => {
      if (e.target.closest('[data-close]') || e.target === d) d.close();
    });
  }
  if (!d.open) d.showModal();
}

// Small line icons (no emoji: phones and desktops differ in emoji fonts, some have none).
const ico = (d, extra = '') => `<svg class="ico" viewBox="0 0 24 24" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"${extra}>${d}</svg>`;
export const ICONS = {
  robot: ico('<rect x="5" y="8" width="14" height="11" rx="3"/><path d="M12 4v4M9 13h.01M15 13h.01M9.5 16.5h5M3 12v3M21 12v3"/>'),
  bulb: ico('<path d="M9 18h6M10 21h4M12 3a6 6 0 0 0-4 10.5c.7.7 1 1.5 1 2.5h6c0-1 .3-1.8 1-2.5A6 6 0 0 0 12 3z"/>'),
  scale: ico('<path d="M12 3v18M7 21h10M5 7h14M5 7l-3 7a3 3 0 0 0 6 0zM19 7l-3 7a3 3 0 0 0 6 0z"/>'),
  sound: ico('<path d="M4 9v6h4l5 4V5L8 9z"/><path d="M16 9a4 4 0 0 1 0 6M19 6a8 8 0 0 1 0 12"/>'),
  mute: ico('<path d="M4 9v6h4l5 4V5L8 9z"/><path d="M17 9l5 6M22 9l-5 6"/>'),
  bell: ico('<path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 21h4"/>'),
  book: ico('<path d="M4 5a2 2 0 0 1 2-2h13v16H6a2 2 0 0 0-2 2zM4 19V5"/>'),
  expand: ico('<path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5"/>'),
  eye: ico('<path d="M2 12s4-7 10-7 10 7 10 7-4 7-10 7S2 12 2 12z"/><circle cx="12" cy="12" r="3"/>'),
  plus: ico('<path d="M12 5v14M5 12h14"/>'),
  door: ico('<path d="M14 4h5v16h-5M10 8l-4 4 4 4M6 12h10"/>'),
};
