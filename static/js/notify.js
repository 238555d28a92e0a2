// «Te toca» on the page: the «Avisarme cuando me toque» button (permission is asked only from
// that tap), the push subscription with the server's VAPID key, the menu's on/off toggle, the
// host's reminder delay, page visibility for the server (no push while the page is in view) and,
// on iPhone and iPad, the explanation that notices need the app on the home screen.
// table.js calls setupNotify() once, notifyUpdate(state) on each render and notifyMenuItems()
// when it draws the menu. Server side: tables/push.py, tables/push_routes.py (docs/API.md).
import { getJSON, postJSON, csrfToken } from './api.js';
import { h, openDialog } from './util.js';

const HEARTBEAT_MS = 20000;
const BELL = '<svg class="ico" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4z"/><path d="M10 20a2 2 0 0 0 4 0"/></svg>';

const N = {
  tableId: '', api: '', status: null, state: null, seat: undefined, busy: false, timer: 0,
  reg: null, sig: '', onChange: () => {},
};

const TEXT = {
  offer: 'Avisarme cuando me toque',
  on: 'Avisos: sí',
  off: 'Avisarme cuando me toque',
  ready: 'Listo: te avisamos en este dispositivo cuando te toque, en esta mesa y en todas las tuyas.',
  stopped: 'Avisos apagados en esta mesa.',
  denied: 'Los avisos están bloqueados para este sitio. Para recibirlos, permítelos en los ajustes del navegador y vuelve a tocar «Avisarme cuando me toque».',
  dismissed: 'Sin permiso no podemos avisarte. Cuando quieras, vuelve a tocar «Avisarme cuando me toque».',
  unsupported: 'Este navegador no puede recibir avisos. Prueba con otro navegador, o entra a la mesa de vez en cuando: la partida te espera.',
  oldIOS: 'Tu iPhone o iPad necesita iOS 16.4 o posterior para recibir avisos de Corazones.',
  failed: 'No se pudieron activar los avisos. Revisa tu conexión e inténtalo otra vez.',
  seatedOnly: 'Los avisos son para quienes tienen lugar en la mesa.',
  note: 'Te avisamos cuando sea tu turno, aunque no tengas la página abierta. Un aviso por turno, y un recordatorio si sigue siendo tu turno después de un rato.',
};

// ------------------------------------------------------------------ what this browser can do

export function isIOS() {
  const ua = navigator.userAgent || '';
  return /iPad|iPhone|iPod/.test(ua) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
}

export function isStandalone() {
  return navigator.standalone === true
    || (window.matchMedia && window.matchMedia('(display-mode: standalone)').matches);
}

function pushSupported() {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

/** Why notices cannot be turned on here ('' if they can): 'ios-home', 'ios-old', 'unsupported'. */
export function blocker() {
  if (isIOS() && !isStandalone()) return 'ios-home';
  if (!pushSupported()) return isIOS() ? 'ios-old' : 'unsupported';
  return '';
}

function permission() {
  return 'Notification' in window ? Notification.permission : 'default';
}

// ------------------------------------------------------------------ talking to the person

function say(text, kind = 'info') {
  const el = document.getElementById('toast');
  if (!el) return;
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = false;
  clearTimeout(say.timer);
  say.timer = setTimeout(() => { el.hidden = true; }, kind === 'error' ? 4200 : 3000);
}

function dialog(title, paragraphs) {
  let d = document.getElementById('notify-dialog');
  if (!d) {
    d = h('dialog.sheet.modal', { id: 'notify-dialog', 'aria-labelledby': 'notify-dialog-title' });
    document.body.append(d);
  }
  const close = h('button.icon-btn', { type: 'button', 'aria-label': 'Cerrar', onclick: () => d.close() }, '✕');
  d.replaceChildren(
    h('div.sheet-head', null, h('h2', { id: 'notify-dialog-title' }, title), close),
    h('div.sheet-body', null, ...paragraphs.map((p) => (typeof p === 'string' ? h('p', null, p) : p)),
      h('button.btn', { type: 'button', onclick: () => d.close() }, 'Entendido')),
  );
  openDialog(d);
}

function explainIOS() {
  dialog('Avisos en iPhone y iPad', [
    'En iPhone y iPad, los avisos solo llegan a Corazones agregado a la pantalla de inicio (iOS 16.4 o posterior). Así se hace:',
    h('ol', null,
      h('li', null, 'Abre el menú (☰) y copia tu enlace privado con COPIAR: con él sigues en tu lugar desde la app.'),
      h('li', null, 'Toca el botón Compartir de Safari y elige «Agregar a pantalla de inicio».'),
      h('li', null, 'Abre Corazones desde el ícono nuevo, pega tu enlace privado en el menú, en «Avisos», y toca «Avisarme cuando me toque».')),
    'La app de la pantalla de inicio es como otro dispositivo: tu lugar pasa a ella y la mesa te espera ahí.',
  ]);
}

function explain(why) {
  if (why === 'ios-home') explainIOS();
  else dialog('Avisos', [TEXT[why === 'ios-old' ? 'oldIOS' : why] || TEXT.unsupported]);
}

// ------------------------------------------------------------------ service worker, subscription

function b64urlToBytes(s) {
  const raw = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

function sameKey(sub, key) {
  const have = sub.options && sub.options.applicationServerKey;
  if (!have) return true;
  const a = new Uint8Array(have);
  const b = b64urlToBytes(key);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export async function registerWorker() {
  if (!('serviceWorker' in navigator)) return null;
  if (!N.reg) N.reg = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  return N.reg;
}

/** This browser's push subscription (made with the server's key if there is none yet). */
async function browserSubscription(key) {
  await registerWorker();
  const reg = await navigator.serviceWorker.ready;
  if (!key) throw new Error('no key');
  let sub = await reg.pushManager.getSubscription();
  if (sub && !sameKey(sub, key)) { await sub.unsubscribe(); sub = null; }
  if (!sub) sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: b64urlToBytes(key) });
  return sub;
}

// The server keeps one subscription per device and gives it to every table where the device
// sits, now and later (tables/players.py): subscribing here serves all of them.
async function subscribe() {
  const sub = await browserSubscription((N.status && N.status.public_key) || document.body.dataset.vapidKey);
  N.status = await postJSON(`${N.api}/push`, { subscription: sub.toJSON() });
}

/** Mis mesas: the one permission for every table of this device (asked only from the tap).
 *  Returns the device's status ({public_key, subscribed}) or null. */
export async function enableDevice(key) {
  const why = blocker();
  if (why) { explain(why); return null; }
  const perm = await Notification.requestPermission();
  if (perm !== 'granted') {
    dialog('Avisos', [perm === 'denied' ? TEXT.denied : TEXT.dismissed]);
    return null;
  }
  const sub = await browserSubscription(key || document.body.dataset.vapidKey);
  const st = await postJSON('/api/push/device', { subscription: sub.toJSON() });
  say('Listo: te avisamos en este dispositivo cuando te toque, en todas tus mesas.');
  return st;
}

/** Whether notices can be offered here, and if not why ('' | 'ios-home' | 'ios-old' | 'unsupported' | 'denied'). */
export function deviceBlocker() {
  return blocker() || (permission() === 'denied' ? 'denied' : '');
}

export { explain, say, TEXT as NOTIFY_TEXT };

/** The tap on «Avisarme cuando me toque»: the only place that asks for permission. */
export async function enable() {
  const why = blocker();
  if (why) { explain(why); return false; }
  if (N.busy) return false;
  N.busy = true;
  try {
    const perm = await Notification.requestPermission();
    if (perm !== 'granted') {
      dialog('Avisos', [perm === 'denied' ? TEXT.denied : TEXT.dismissed]);
      return false;
    }
    await subscribe();
    presence(true);
    say(TEXT.ready);
    return true;
  } catch (e) {
    say((e && e.status && e.message) || TEXT.failed, 'error');
    return false;
  } finally {
    N.busy = false;
    refresh();
  }
}

/** The menu's «Avisos: sí» tapped: this table stops notifying this device. */
export async function disable() {
  try {
    N.status = await postJSON(`${N.api}/push/off`, {});
    say(TEXT.stopped);
  } catch (e) {
    say(e.message || TEXT.failed, 'error');
  }
  refresh();
}

async function loadStatus() {
  try {
    N.status = await getJSON(`${N.api}/push`);
  } catch {
    N.status = null;
  }
  refresh();
  if (N.status && N.status.subscribed) presence(document.visibilityState === 'visible');
}

// ------------------------------------------------------------------ visibility for the server

function presence(visible) {
  clearTimeout(N.timer);
  if (!N.status || !N.status.subscribed) return;
  const url = `${N.api}/push/presence`;
  if (visible) {
    postJSON(url, { visible: true }).catch(() => {});
    N.timer = setTimeout(() => presence(document.visibilityState === 'visible'), HEARTBEAT_MS);
    clearNotices();
  } else {
    try {
      fetch(url, {
        method: 'POST', keepalive: true, credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-CSRFToken': csrfToken() },
        body: JSON.stringify({ visible: false }),
      }).catch(() => {});
    } catch { /* the page is going away */ }
  }
}

function clearNotices() {
  const ctl = navigator.serviceWorker && navigator.serviceWorker.controller;
  if (ctl) ctl.postMessage({ type: 'corazones:seen', tag: `corazones-${N.tableId}` });
}

// ------------------------------------------------------------------ the button and the menu

function offerButton() {
  let b = document.getElementById('notify-offer');
  if (!b) {
    b = h('button.btn.btn-small.notify-offer', {
      type: 'button', id: 'notify-offer', 'aria-label': TEXT.offer, title: TEXT.offer,
      html: `${BELL}<span class="notify-label">${TEXT.offer}</span>`,
    });
    b.addEventListener('click', () => { enable(); });
    const before = document.getElementById('chat-btn');
    if (before && before.parentNode) before.parentNode.insertBefore(b, before);
    else document.body.append(b);
  }
  return b;
}

function seated() {
  return N.state && N.state.me && N.state.me.seat != null;
}

function refresh() {
  const b = offerButton();
  const subscribed = !!(N.status && N.status.subscribed);
  b.hidden = !seated() || subscribed || permission() === 'denied';
  document.body.dataset.notify = subscribed ? 'on' : 'off';
  const sig = JSON.stringify([N.status, permission(), seated()]);
  if (sig !== N.sig) { N.sig = sig; N.onChange(); }
}

/** Called by table.js on every render with the current state. */
export function notifyUpdate(state) {
  N.state = state;
  const seat = state && state.me ? state.me.seat : null;
  if (seat !== N.seat) {
    N.seat = seat;
    if (seat != null) loadStatus();
    else { N.status = null; refresh(); }
  } else {
    refresh();
  }
}

function pasteSeatLink() {
  const input = h('input.link', { type: 'url', placeholder: 'Pega aquí tu enlace privado', 'aria-label': 'Tu enlace privado' });
  const go = h('button.btn', {
    type: 'button',
    onclick: () => {
      let u;
      try { u = new URL(input.value.trim(), location.origin); } catch { u = null; }
      if (u && u.origin === location.origin && /^\/t\/[^/]+\/s\/[^/]+$/.test(u.pathname)) location.href = u.pathname;
      else say('Ese no es un enlace privado de Corazones', 'error');
    },
  }, 'Seguir en mi lugar');
  return h('div.link-row', null, input, go);
}

/** The menu's «Avisos» section (table.js puts these nodes in the menu). */
export function notifyMenuItems() {
  const out = [h('h3', null, 'Avisos')];
  const st = N.status;
  const why = blocker();
  if (!seated()) {
    out.push(h('p.menu-note', null, TEXT.seatedOnly));
    if (isStandalone()) out.push(h('p.menu-note', null, '¿Ya tenías lugar en esta mesa? Pega tu enlace privado:'), pasteSeatLink());
    return out;
  }
  const on = !!(st && st.subscribed);
  out.push(h('button.btn.menu-item', {
    type: 'button', id: 'menu-notify', 'aria-pressed': on ? 'true' : 'false',
    html: `${BELL} ${on ? TEXT.on : TEXT.off}`,
    onclick: () => (on ? disable() : enable()),
  }));
  if (on) out.push(h('p.menu-note', null, TEXT.note));
  else if (why === 'ios-home') {
    out.push(h('p.menu-note', null, 'En iPhone y iPad, los avisos llegan solo si agregas Corazones a la pantalla de inicio.'),
      h('button.btn.btn-link', { type: 'button', onclick: explainIOS }, 'Cómo activarlos'));
  } else if (why) out.push(h('p.menu-note', null, TEXT[why === 'ios-old' ? 'oldIOS' : 'unsupported']));
  else if (permission() === 'denied') out.push(h('p.menu-note', null, TEXT.denied));
  if (st && st.is_host) {
    const sel = h('select', { id: 'notify-reminder', 'aria-label': 'Recordatorio' },
      (st.reminder_choices || [12]).map((n) => h('option', { value: String(n), selected: Number(st.reminder_hours) === n }, n === 1 ? '1 hora' : `${n} horas`)));
    sel.addEventListener('change', async () => {
      try {
        N.status = await postJSON(`${N.api}/push/settings`, { reminder_hours: Number(sel.value) });
        say(`Recordatorio: después de ${sel.value === '1' ? '1 hora' : `${sel.value} horas`}`);
      } catch (e) { say(e.message || TEXT.failed, 'error'); }
    });
    out.push(h('label.menu-row', null, h('span.menu-note', null, 'Si sigue siendo el turno de alguien, recordárselo después de'), sel));
  }
  return out;
}

/** Once per page: the service worker, this table's manifest, visibility reports. */
export function setupNotify({ tableId, api, onChange } = {}) {
  N.tableId = tableId || document.body.dataset.tableId || '';
  N.api = api || `/api/tables/${N.tableId}`;
  if (onChange) N.onChange = onChange;
  if (!document.querySelector('link[href$="notify.css"]')) {
    document.head.append(h('link', { rel: 'stylesheet', href: new URL('../css/notify.css', import.meta.url).href }));
  }
  const manifest = document.querySelector('link[rel="manifest"]');
  if (manifest && N.tableId) manifest.href = `/t/${N.tableId}/manifest.webmanifest`;
  registerWorker().catch(() => {});
  document.addEventListener('visibilitychange', () => presence(document.visibilityState === 'visible'));
  window.addEventListener('pagehide', () => presence(false));
  refresh();
}
