// Service worker: shows the push "te toca" and opens the table when the notice is tapped.
self.addEventListener('push', (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch { data = { body: event.data && event.data.text() }; }
  const title = data.title || 'Corazones';
  event.waitUntil(self.registration.showNotification(title, {
    body: data.body || '¡Te toca!',
    tag: data.tag || 'corazones',
    icon: '/static/favicon.svg',
    data: { url: data.url || '/' },
  }));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || '/';
  event.waitUntil((async () => {
    const wins = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    for (const w of wins) {
      if (new URL(w.url).pathname === new URL(url, self.location.origin).pathname && 'focus' in w) return w.focus();
    }
    return self.clients.openWindow(url);
  })());
});
