// «Verificar el reparto» on the replay and review pages: fetch a hand's deal record, verify it in
// this browser (deal-verify.js, the port of rules.deal.verify) and show the verdict, each seat's
// part and whether this browser's own seed is in it. Loaded on the first click only.
import { h } from './util.js';
import { verifyRecord } from './deal-verify.js';

const short = (hex) => (hex.length > 20 ? `${hex.slice(0, 8)}…${hex.slice(-8)}` : hex);

/** A hex value shortened; a tap shows it whole (and the title holds it whole too). */
function hexButton(label, hex) {
  const b = h('button.rp-hex', { type: 'button', title: `${label}: ${hex}`, 'aria-expanded': 'false' },
    short(hex));
  b.addEventListener('click', () => {
    const open = b.getAttribute('aria-expanded') !== 'true';
    b.setAttribute('aria-expanded', String(open));
    b.textContent = open ? hex : short(hex);
  });
  return b;
}

/** This browser's own seed for the record's hand, as the table page stored it (or null). The
 * value is the seed's hex, or JSON with `seed` (and maybe `seat`). */
export function storedSeed(table, game, hand) {
  const key = `corazones:seed:${table}:${game}:${hand}`;
  let raw = null;
  for (const store of ['localStorage', 'sessionStorage']) {
    try { raw = raw || globalThis[store].getItem(key); } catch { /* storage blocked */ }
  }
  if (!raw) return null;
  let seed = raw;
  let seat = null;
  if (raw.trim().startsWith('{')) {
    try {
      const o = JSON.parse(raw);
      seed = o.seed;
      seat = Number.isInteger(o.seat) ? o.seat : null;
    } catch { return null; }
  }
  return typeof seed === 'string' ? { seed: seed.trim().toLowerCase(), seat } : null;
}

function whoShuffled(part, who) {
  if (part.by === 'player') return `barajó ${who.name}`;
  return who.robot ? 'barajó el servidor' : `barajó el servidor por ${who.name}`;
}

function mark(ok) {
  return h('span.rp-mark', { class: ok ? 'rp-good' : 'rp-bad', role: 'img',
    'aria-label': ok ? 'correcto' : 'no cuadra' }, ok ? '✓' : '✗');
}

function seatRow(part, who, mine) {
  return h('li.rp-verify-seat', { dataset: { seat: String(part.seat), by: part.by, ok: part.ok ? '1' : '0' } },
    h('p.rp-verify-who', null, mark(part.ok), h('b', null, who.name),
      mine ? h('span.rp-you', null, ' (tú)') : null,
      h('span.rp-verify-by', null, whoShuffled(part, who))),
    h('dl.rp-verify-values', null,
      h('dt', null, 'Compromiso'), h('dd', null, hexButton(`Compromiso de ${who.name}`, part.commitment)),
      h('dt', null, 'Semilla'), h('dd', null, hexButton(`Semilla de ${who.name}`, part.seed))));
}

function ownCheck(result, seats, reviewSeat) {
  const stored = storedSeed(result.table, result.game, result.hand);
  if (!stored) return null;
  const mine = stored.seat ?? reviewSeat;
  const found = result.seats.find((p) => p.seed === stored.seed && (mine == null || p.seat === mine));
  if (found && found.by === 'player') {
    return { seat: found.seat, el: h('p.rp-verify-own.rp-good', { dataset: { own: 'ok' } }, 'Tu semilla está en el reparto ✓') };
  }
  const at = mine != null ? result.seats[mine] : null;
  const why = at && at.by === 'server'
    ? ' El registro dice que el servidor barajó por ti: quizá tu semilla no llegó a tiempo; si la enviaste antes del reparto, el servidor la cambió.'
    : ' Si la enviaste antes del reparto, el servidor no la usó.';
  return {
    seat: mine,
    el: h('p.rp-verify-own.rp-warn', { dataset: { own: 'missing' } },
      `⚠ Este navegador guardó tu semilla para esta mano, pero el reparto no la lleva.${why}`),
  };
}

/**
 * Fetch `url` (the hand's deal record), verify it and draw the result into `out`.
 * `seats`: [{name, robot}] by seat number; `reviewSeat`: this viewer's seat when known.
 */
export async function showDeal(out, { url, seats, reviewSeat = null }) {
  out.dataset.state = 'loading';
  out.replaceChildren(h('p.rp-verify-note', null, 'Comprobando el reparto…'));
  let res;
  try {
    res = await fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  } catch {
    out.dataset.state = 'error';
    out.replaceChildren(h('p.rp-verify-note', null, 'No se pudo traer el registro del reparto: sin conexión.'));
    return;
  }
  const body = await res.text();
  if (!res.ok) {
    let message = null;
    try { message = JSON.parse(body).message; } catch { /* not JSON */ }
    out.dataset.state = res.status === 404 ? 'missing' : 'error';
    out.replaceChildren(h('p.rp-verify-note', null, typeof message === 'string' && message
      ? message : 'No se pudo traer el registro del reparto.'));
    return;
  }
  let result;
  try {
    result = await verifyRecord(body);
  } catch {
    out.dataset.state = 'error';
    out.replaceChildren(h('p.rp-verify-note', null,
      'Este navegador no puede calcular aquí los compromisos (SHA-256 pide una conexión segura, https).'));
    return;
  }
  const parts = [];
  if (result.ok) {
    parts.push(h('p.rp-verify-verdict.rp-good', null, 'Reparto verificado ✓'));
  } else {
    parts.push(h('p.rp-verify-verdict.rp-bad', null, '✗ El reparto no cuadra:'),
      h('ul.rp-verify-failures', null, result.failures.map((line) => h('li', null, line))));
  }
  if (result.seats) {
    const who = (s) => seats[s] || { name: `Asiento ${s + 1}`, robot: false };
    const own = ownCheck(result, seats, reviewSeat);
    if (own) parts.push(own.el);
    const mine = own ? own.seat : reviewSeat;
    parts.push(h('ul.rp-verify-seats', { 'aria-label': 'La parte de cada asiento' },
      result.seats.map((p) => seatRow(p, who(p.seat), p.seat === mine)),
      h('li.rp-verify-seat', { dataset: { seat: 'server', ok: result.server.commitmentMatches && result.server.inOrder ? '1' : '0' } },
        h('p.rp-verify-who', null, mark(result.server.commitmentMatches && result.server.inOrder),
          h('b', null, 'El servidor'), h('span.rp-verify-by', null, 'su semilla, comprometida antes de todo')),
        h('dl.rp-verify-values', null,
          h('dt', null, 'Compromiso'), h('dd', null, hexButton('Compromiso del servidor', result.server.commitment)),
          h('dt', null, 'Semilla'), h('dd', null, hexButton('Semilla del servidor', result.server.seed))))));
  }
  parts.push(h('p.rp-verify-note', null, h('a.rp-deal-json', {
    href: url, download: `corazones-reparto-${result.game ?? 'x'}-${result.hand ?? 'x'}.json`,
  }, 'Descargar el registro del reparto'), ' (para verificarlo fuera del sitio)'));
  out.dataset.state = result.ok ? 'ok' : 'failed';
  out.replaceChildren(...parts);
}
