// HTTP helpers for the pages: JSON, the CSRF header, idempotent actions and the long-poll.

export function csrfToken() {
  const m = document.querySelector('meta[name="csrf-token"]');
  return m ? m.content : '';
}

export function uuid() {
  if (globalThis.crypto && crypto.randomUUID) {
    try { return crypto.randomUUID(); } catch { /* not a secure context */ }
  }
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** An error answered by the server: `.status`, `.code`, Spanish `.message`, optional `.state`. */
export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || (status ? 'No se pudo completar la acción' : 'Sin conexión con la mesa'));
    this.status = status;
    this.code = (body && body.error) || (status ? 'error' : 'network');
    this.state = body && body.state;
  }
}

export async function request(method, url, body, { signal, headers = {} } = {}) {
  const opts = { method, headers: { Accept: 'application/json', ...headers }, credentials: 'same-origin', signal };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  if (method !== 'GET') opts.headers['X-CSRFToken'] = csrfToken();
  let res;
  try {
    res = await fetch(url, opts);
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiError(0, null);
  }
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

export const getJSON = (url, opts) => request('GET', url, undefined, opts);
export const postJSON = (url, body, opts) => request('POST', url, body, opts);
