// Visual check page for the decks (static/decks-preview.html). No inline script: CSP default-src 'self'.
import { DECKS, SUITS, RANKS, cardSVG, cardBackSVG, queenSVG, queenEyeSVG, suitSymbol, suitName } from './decks.js';
import { sound } from './sound.js';

const css = new CSSStyleSheet();
css.replaceSync(`
  body.preview { margin: 0; padding: 16px; background: #0f5a34; color: #f4f1e8; font: 15px/1.4 system-ui, sans-serif; }
  .preview h1, .preview h2 { margin: .6em 0 .3em; }
  .preview .deck { margin: 0 0 28px; }
  .preview .grid { display: grid; grid-template-columns: repeat(13, 1fr); gap: 8px; max-width: 1400px; }
  .preview .grid .card { --card-w: 100%; }
  .preview .row { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-end; }
  .preview .phone { width: 390px; background: #0c4b2b; padding: 8px; border-radius: 12px; }
  .preview .phone .hand { display: flex; margin: 6px 0 10px; }
  .preview .phone .card { --card-w: 52px; margin-right: -26px; }
  .preview .states .card { --card-w: 90px; }
  .preview .queen-portrait { width: 260px; }
  .preview button { font: inherit; margin: 2px; }
`);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, css];

const el = (tag, cls, html) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (html != null) e.innerHTML = html;
  return e;
};
const cardEl = (code, deck, cls = '') => {
  const e = el('div', `card ${cls}`.trim(), cardSVG(code, deck));
  e.dataset.deck = deck;
  return e;
};

// ?deck=reino&cards=JS,QH&w=180 narrows the page for close-up checks.
const qs = new URLSearchParams(location.search);
const only = qs.get('deck');
const pick = qs.get('cards') ? qs.get('cards').toUpperCase().split(',') : null;
if (qs.get('w')) css.insertRule(`.preview .grid { grid-template-columns: repeat(auto-fill, ${+qs.get('w')}px); }`, css.cssRules.length);

const main = document.getElementById('decks');
for (const d of DECKS.filter((x) => !only || x.id === only)) {
  const sec = el('section', 'deck');
  sec.append(el('h2', '', `${d.name} <small>(${d.id})</small>`), el('p', '', d.description));
  const grid = el('div', 'grid');
  for (const s of ['S', 'H', 'C', 'D']) for (const r of RANKS) if (!pick || pick.includes(r + s)) grid.append(cardEl(r + s, d.id));
  const back = el('div', 'card back', cardBackSVG(d.id));
  back.dataset.deck = d.id;
  grid.append(back);
  sec.append(grid);
  main.append(sec);
}

const phone = document.getElementById('phone');
const hand = ['2C', '7C', 'TC', 'QC', '4D', 'TD', 'KD', '3H', '9H', 'AH', '5S', 'QS', 'AS'];
for (const d of DECKS) {
  phone.append(el('div', '', d.name));
  const h = el('div', 'hand');
  hand.forEach((c) => h.append(cardEl(c, d.id)));
  phone.append(h);
}

const states = document.getElementById('states');
states.classList.add('states');
[['QS', 'playable'], ['TH', 'dimmed'], ['AH', 'selected playable'], ['2C', 'received'], ['KD', '']].forEach(([c, cls]) => {
  const e = cardEl(c, 'reino', cls);
  const wrap = el('div', '');
  wrap.append(e, el('div', '', `.${cls || 'card'}`));
  states.append(wrap);
});
const b = el('div', 'card back', cardBackSVG('noche'));
b.dataset.deck = 'noche';
states.append(b);

const q = document.getElementById('queen');
for (const mood of ['smile', 'wink', 'stern']) q.append(el('div', 'queen-portrait', queenSVG({ mood })));
q.append(el('div', 'queen-portrait', queenSVG({ frame: false })));
const eyes = el('div', '');
for (const w of [20, 28, 48]) eyes.append(el('span', '', queenEyeSVG({ width: w })), ' ');
q.append(eyes);

const snd = document.getElementById('sounds');
snd.append('Sonidos: ');
for (const name of ['card', 'trick', 'pass', 'turn', 'hearts', 'queen', 'error', 'cornetita', 'win', 'lose']) {
  const btn = el('button', '', name);
  btn.type = 'button';
  btn.addEventListener('click', () => sound.play(name));
  snd.append(btn);
}
const tg = el('button', '', '');
const label = () => { tg.textContent = sound.enabled ? 'Sonido: sí' : 'Sonido: no'; };
tg.addEventListener('click', () => { sound.toggle(); label(); });
label();
snd.append(tg, ` · ${SUITS.map((s) => `${suitSymbol(s)} ${suitName(s)}`).join(', ')}`);
if (qs.get('queen')) {
  document.body.innerHTML = '';
  const big = el('div', 'queen-portrait', queenSVG({ mood: qs.get('queen') }));
  big.style.width = '600px';
  document.body.append(big, el('span', '', queenEyeSVG({ width: 200 })));
}
