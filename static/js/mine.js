// Mis mesas: the waited times kept current, the name, the one notification permission for every
// table of this device, and «Llevar mi perfil a otro teléfono». The list itself is rendered by
// the server (templates/mis_mesas.html); the API is docs/API.md, «El jugador».
import { getJSON, postJSON } from './api.js';
import { deviceBlocker, enableDevice, explain, registerWorker, say, NOTIFY_TEXT } from './notify.js';
import { $, copyText, store } from './util.js';

// ------------------------------------------------------------------ how long each turn waited

function waitedText(seconds) {
  if (seconds < 60) return 'hace menos de un minuto';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `hace ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return hours === 1 ? 'hace 1 hora' : `hace ${hours} horas`;
  return `hace ${Math.floor(hours / 24)} días`;
}

function tick() {
  for (const el of document.querySelectorAll('.waited[data-since]')) {
    const since = Date.parse(el.dataset.since);
    if (!Number.isNaN(since)) el.textContent = waitedText(Math.max(0, (Date.now() - since) / 1000));
  }
}
setInterval(tick, 30000);

// Back on the page after a while: show what changed meanwhile (unless something is being typed).
let hiddenAt = 0;
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') { hiddenAt = Date.now(); return; }
  const typing = document.activeElement && document.activeElement.tagName === 'INPUT';
  if (hiddenAt && Date.now() - hiddenAt > 60000 && !typing) location.reload();
});

// ------------------------------------------------------------------ the name

const nameForm = $('#name-form');
const nameInput = $('#mine-name');
const err = $('#mine-error');
if (nameInput && !nameInput.value) nameInput.value = store('corazones.name') || '';
if (nameForm) {
  nameForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.hidden = true;
    const name = nameInput.value.trim();
    if (!name) {
      err.textContent = 'Escribe tu nombre: así te ven en la mesa.';
      err.hidden = false;
      nameInput.focus();
      return;
    }
    try {
      const me = await postJSON('/api/me', { name });
      store('corazones.name', me.name);
      nameInput.value = me.name;
      const shown = $('#mine-name-shown');
      if (shown) shown.textContent = me.name;
      say(`Listo: en las mesas nuevas te llamas ${me.name}.`);
    } catch (ex) {
      err.textContent = ex.message || 'No se pudo guardar el nombre.';
      err.hidden = false;
    }
  });
}

// ------------------------------------------------------------------ notices, once for every table

const bell = $('#device-notify');
const note = $('#notify-note');
let subscribed = false;

function drawBell() {
  if (!bell) return;
  const hasTables = !!document.querySelector('.my-table');
  const why = deviceBlocker();
  bell.hidden = !hasTables || (why === 'denied' && !subscribed);
  bell.textContent = subscribed ? 'Avisos: sí (toca para apagarlos)' : 'Avisarme cuando me toque';
  bell.setAttribute('aria-pressed', subscribed ? 'true' : 'false');
  if (!hasTables) note.textContent = 'Los avisos son para quienes tienen lugar en alguna mesa.';
  else if (why === 'denied' && !subscribed) note.textContent = NOTIFY_TEXT.denied;
}

if (bell) {
  bell.addEventListener('click', async () => {
    bell.disabled = true;
    try {
      if (subscribed) {
        subscribed = !!(await postJSON('/api/push/device/off', {})).subscribed;
        say('Avisos apagados en este dispositivo.');
      } else {
        const why = deviceBlocker();
        if (why && why !== 'denied') { explain(why); return; }
        const st = await enableDevice();
        if (st) subscribed = !!st.subscribed;
      }
    } catch (ex) {
      say((ex && ex.status && ex.message) || NOTIFY_TEXT.failed, 'error');
    } finally {
      bell.disabled = false;
      drawBell();
    }
  });
  getJSON('/api/push/device').then((st) => { subscribed = !!st.subscribed; drawBell(); }).catch(() => drawBell());
  registerWorker().catch(() => {});
}

// ------------------------------------------------------------------ the profile-move link

const moveBox = $('#move-box');
function drawMove(url) {
  const full = url ? new URL(url, location.origin).href : '';
  $('#move-link').value = full;
  $('#move-row').hidden = !url;
  $('#move-void').hidden = !url;
  $('#move-issue').textContent = url ? 'Cambiar el enlace (el anterior deja de servir)' : 'Crear el enlace';
}
if (moveBox) {
  $('#move-issue').addEventListener('click', async () => {
    try {
      const me = await postJSON('/api/me/move', {});
      drawMove(me.move_url);
      say('Enlace listo: ábrelo en el otro teléfono. Sirve una sola vez.');
    } catch (ex) { say(ex.message || 'No se pudo crear el enlace.', 'error'); }
  });
  $('#move-void').addEventListener('click', async () => {
    try {
      const me = await postJSON('/api/me/move/off', {});
      drawMove(me.move_url);
      say('Enlace anulado: ya no sirve.');
    } catch (ex) { say(ex.message || 'No se pudo anular el enlace.', 'error'); }
  });
  $('#move-copy').addEventListener('click', async () => {
    const ok = await copyText($('#move-link').value);
    say(ok ? 'Enlace copiado' : 'Cópialo a mano: mantén el dedo sobre el enlace', ok ? 'info' : 'error');
  });
}
