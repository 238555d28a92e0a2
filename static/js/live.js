// Jugar en vivo: the waiting view (/en-vivo) keeps its queue entry alive with a poll every 2 s,
// shows the time and how many are looking, CANCELAR; seated, it goes to the table. Mesas en vivo
// (/mesas-en-vivo) refreshes its list.
import { request } from './api.js';
import { $, store } from './util.js';

const POLL_MS = 2000;

export async function joinLive(name) {
  return request('POST', '/api/live/queue', { name });
}

function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function waitingPage(root) {
  const show = (status) => {
    $('#live-wait').hidden = status !== 'waiting';
    $('#live-seated').hidden = status !== 'seated';
    $('#live-join').hidden = status !== 'none';
    root.dataset.status = status;
  };
  let startedAt = Date.now() - Number(root.dataset.waited || 0) * 1000;
  let timer = null;
  let pollTimer = null;
  let stopped = false;

  const tick = () => { $('#live-time').textContent = clockText((Date.now() - startedAt) / 1000); };
  const apply = (q) => {
    if (q.status === 'seated' && q.url) {
      show('seated');
      $('#live-go').href = q.url;
      stop();
      location.href = q.url;
      return;
    }
    if (q.status === 'waiting') {
      show('waiting');
      startedAt = Date.now() - (q.waited_seconds || 0) * 1000;
      const n = q.looking || 0;
      $('#live-looking').textContent = `${n} ${n === 1 ? 'persona busca' : 'personas buscan'} mesa ahora`;
      const r = $('#live-rating');
      if (r && q.rating) r.textContent = q.rating;
      tick();
      return;
    }
    show('none');
    stop();
  };
  const stop = () => {
    stopped = true;
    clearInterval(timer);
    clearTimeout(pollTimer);
  };
  const poll = async () => {
    if (stopped) return;
    try {
      apply(await request('POST', '/api/live/queue/poll'));
      $('#live-error').hidden = true;
    } catch (e) {
      $('#live-error').textContent = e.status ? e.message : 'Sin conexión: seguimos intentando…';
      $('#live-error').hidden = false;
    }
    if (!stopped) pollTimer = setTimeout(poll, POLL_MS);
  };
  const start = () => {
    stopped = false;
    clearInterval(timer);
    timer = setInterval(tick, 250);
    poll();
  };

  $('#live-cancel').addEventListener('click', async () => {
    const btn = $('#live-cancel');
    btn.disabled = true;
    try {
      const q = await request('DELETE', '/api/live/queue');
      stop();
      if (q.status === 'seated') apply(q);
      else location.href = '/';
    } catch (e) {
      $('#live-error').textContent = e.message;
      $('#live-error').hidden = false;
      btn.disabled = false;
    }
  });

  $('#live-join').addEventListener('submit', async (e) => {
    e.preventDefault();
    const err = $('#join-error');
    err.hidden = true;
    const name = $('#live-name').value.trim();
    if (!name) {
      err.textContent = 'Escribe tu nombre: así te ven en la mesa.';
      err.hidden = false;
      $('#live-name').focus();
      return;
    }
    const btn = $('#live-join-btn');
    btn.disabled = true;
    try {
      store('corazones.name', name);
      const q = await joinLive(name);
      btn.disabled = false;
      apply(q);
      if (q.status === 'waiting') start();
    } catch (ex) {
      err.textContent = ex.message;
      err.hidden = false;
      btn.disabled = false;
    }
  });

  if (root.dataset.status === 'seated' && root.dataset.url) location.href = root.dataset.url;
  else if (root.dataset.status === 'waiting') start();
  else {
    const input = $('#live-name');
    if (input && !input.value) input.value = store('corazones.name') || '';
  }
}

function listPage(box) {
  const refresh = async () => {
    try {
      const res = await fetch('/mesas-en-vivo?parte=lista', { headers: { Accept: 'text/html' } });
      if (res.ok) box.innerHTML = await res.text();
    } catch { /* keep the list shown */ }
  };
  setInterval(refresh, 10000);
}

const root = $('#live');
if (root) waitingPage(root);
const list = $('#live-tables');
if (list) listPage(list);
