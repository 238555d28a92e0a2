// Corazones' service worker, served at /sw.js (scope /): shows «Te toca» when a push arrives and
// opens the table when the notice is tapped. The payload is JSON from tables/push.py:
// {title, body, tag, url, table, seat, turn, kind} — never a card.
'use strict';

const ICON = '/static/icons/icon-192.png';
const BADGE = '/static/icons/badge-96.png';

self.addEventListener('install', () => { self.skipWaiting(); });
self.addEventListener('activate', (event) => { event.waitUntil(self.clients.claim()); });

/** The notification a push payload becomes (one per table: a newer one replaces the older). */
function noticeFor(data) {
  const url = typeof data.url === 'string' && data.url.startsWith('/') ? data.url : '/';
  return {
    title: data.title || 'Te toca',
    options: {
      body: data.body || 'Es tu turno en Corazones',
      tag: data.tag || 'corazones',
      renotify: true,
      icon: ICON,
      badge: BADGE,
      lang: 'es',
      timestamp: Date.now(),
      data: { url, table: data.table || null, kind: data.kind || 'turn' },
    },
  };
}

async function showPush(data) {
  const { title, options } = noticeFor(data || {});
  await self.registration.showNotification(title, options);
}

self.addEventListener('push', (event) => {
  let data = {};
  if (event.data) {
    try { data = event.data.json(); } catch { data = { body: event.data.text() }; }
  }
  event.waitUntil(showPush(data));
});

/** Open the table: reuse a window already on it (reloaded, so it shows the latest state), else
 *  any window of ours (navigated there), else a new one. */
async function openTable(url) {
  const target = new URL(url || '/', self.location.origin);
  const wins = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const same = wins.find((w) => new URL(w.url).pathname === target.pathname);
  const win = same || wins[0];
  if (win) {
    try { await win.focus(); } catch { /* focusing needs the tap: fine without it */ }
    try {
      const moved = await win.navigate(target.href);
      return moved || win;
    } catch {
      if (same) return win;
    }
  }
  return self.clients.openWindow(target.href);
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || '/';
  event.waitUntil(openTable(url));
});

// The page asks to clear the notices of a table once it is looking at it.
self.addEventListener('message', (event) => {
  const msg = event.data || {};
  if (msg.type === 'corazones:seen' && typeof msg.tag === 'string') {
    event.waitUntil(self.registration.getNotifications({ tag: msg.tag })
      .then((list) => list.forEach((n) => n.close())));
  }
});

// For the browser test (tests/push): the same functions the events use.
self.corazones = { noticeFor, showPush, openTable };
