// Home: ABRIR MESA. Builds the deck previews and creates the table through the API.
import { postJSON, request } from './api.js';
import { DECKS, cardSVG } from './decks.js';
import { $, h, store, openDialog } from './util.js';

const form = $('#open-form');
const deckBox = $('#deck-choice');
const allowed = (deckBox.dataset.decks || '').split(',').filter(Boolean);
const saved = store('corazones.deck');
const decks = DECKS.filter((d) => !allowed.length || allowed.includes(d.id));
const chosen = decks.some((d) => d.id === saved) ? saved : (decks[0] && decks[0].id);

for (const d of decks) {
  const preview = h('span.deck-cards', { 'aria-hidden': 'true' });
  preview.innerHTML = ['QH', 'AS', 'TD', 'KC'].map((c) => `<span class="card" data-deck="${d.id}">${cardSVG(c, d.id)}</span>`).join('');
  deckBox.append(h('label.choice.deck', null,
    h('input', { type: 'radio', name: 'deck', value: d.id, checked: d.id === chosen }),
    h('span', null, preview, h('b', null, d.name), h('small', null, d.description))));
}

const hero = $('#hero-cards');
hero.innerHTML = ['QH', 'AH', 'QS', 'KH', 'JH'].map((c) => `<span class="card">${cardSVG(c, chosen || 'reino')}</span>`).join('');

const nameInput = $('#host-name');
nameInput.value = nameInput.value || store('corazones.name') || '';  // the server's: the last name this device used

// The pace: three short choices; the chosen one's description shows under them.
const paceDesc = $('#pace-desc');
const showPace = () => {
  const on = form.querySelector('input[name="pace"]:checked');
  if (on && paceDesc) paceDesc.textContent = on.dataset.desc || '';
};
for (const r of form.querySelectorAll('input[name="pace"]')) r.addEventListener('change', showPace);
showPace();
const turnHours = $('#turn-hours');
if (turnHours) turnHours.addEventListener('change', () => { form.querySelector('input[name="pace"][value="turnos"]').checked = true; showPace(); });

for (const b of document.querySelectorAll('[data-open-rules]')) b.addEventListener('click', () => openDialog($('#rules-dialog')));

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  const err = $('#open-error');
  err.hidden = true;
  const fd = new FormData(form);
  const name = String(fd.get('host_name') || '').trim();
  if (!name) {
    err.textContent = 'Escribe tu nombre: así te ven en la mesa.';
    err.hidden = false;
    nameInput.focus();
    return;
  }
  const body = {
    host_name: name,
    target: Number(fd.get('target')),
    renege: fd.get('renege'),
    deck: fd.get('deck') || 'reino',
    robot_level: fd.get('robot_level') || 'normal',
    rated: fd.get('rated') !== '0', // con clasificación unless the host chose amistosa
    pace: fd.get('pace') === 'turnos' ? `turno_${fd.get('turn_hours') || '12'}h` : (fd.get('pace') || 'sin_reloj'),
  };
  store('corazones.name', name);
  store('corazones.deck', body.deck);
  const btn = $('#open-btn');
  btn.disabled = true;
  btn.textContent = 'Abriendo…';
  try {
    const res = await postJSON('/api/tables', body);
    location.href = res.url || `/t/${res.table_id}`;
  } catch (ex) {
    err.textContent = ex.message || 'No se pudo abrir la mesa.';
    err.hidden = false;
    btn.disabled = false;
    btn.textContent = 'ABRIR MESA';
  }
});

// JUGAR EN VIVO: one tap queues with the name of the form (or the last one used); the waiting
// view (/en-vivo) takes it from there (it asks for a name when there is none).
$('#live-btn').addEventListener('click', async () => {
  const err = $('#live-error');
  err.hidden = true;
  const name = nameInput.value.trim() || store('corazones.name') || '';
  if (!name) { location.href = '/en-vivo'; return; }
  const btn = $('#live-btn');
  btn.disabled = true;
  try {
    store('corazones.name', name);
    const q = await request('POST', '/api/live/queue', { name });
    location.href = q.status === 'seated' && q.url ? q.url : '/en-vivo';
  } catch (ex) {
    err.textContent = ex.message || 'No se pudo entrar a la fila.';
    err.hidden = false;
    btn.disabled = false;
  }
});
