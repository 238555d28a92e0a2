// The page's part of the fair deal (docs/FAIR_DEAL.md): as soon as the server's commitment for
// the next hand is out and this seat has none, draw 32 random bytes, keep them in localStorage
// (the deal's verifier shows «tu semilla está en el reparto» from there) and send them once.
// Quiet by design: no render, no toast; a refused seed (the hand was dealt already) is dropped.

import { postJSON, uuid, ApiError } from './api.js';

const inFlight = new Set();
const givenUp = new Set(); // refused once: never asked again from this page
const memory = new Map(); // when localStorage is not available (private browsing)

/** The localStorage key of this page's seed for a hand (read by the verifier too). */
export function seedKey(reference, game, hand) {
  return `corazones:seed:${reference}:${game}:${hand}`;
}

const actionKey = (reference, game, hand) => `corazones:seed-action:${reference}:${game}:${hand}`;

function read(key) {
  try { return localStorage.getItem(key); } catch { return memory.get(key) ?? null; }
}

function write(key, value) {
  try { localStorage.setItem(key, value); } catch { memory.set(key, value); }
}

function remove(key) {
  try { localStorage.removeItem(key); } catch { /* nothing kept */ }
  memory.delete(key);
}

function randomHex(bytes) {
  const b = new Uint8Array(bytes);
  crypto.getRandomValues(b);
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

/** Look at a new state; send this seat's seed for the pending hand if it has none yet. */
export function offerSeed(state, actionsUrl) {
  const fair = state && state.fair_deal;
  const seat = state && state.me ? state.me.seat : null;
  const next = fair && fair.next;
  if (!next || seat == null || !globalThis.crypto || !crypto.getRandomValues) return;
  const mine = next.seats.find((s) => s.seat === seat);
  const key = seedKey(fair.table, next.game, next.hand);
  const aKey = actionKey(fair.table, next.game, next.hand);
  if (!mine || mine.commitment != null) {
    remove(aKey); // sent (this page's seed, or another tab's: the same stored one)
    return;
  }
  if (inFlight.has(key) || givenUp.has(key)) return;
  let seed = read(key);
  if (!/^[0-9a-f]{64}$/.test(seed || '')) {
    seed = randomHex(32);
    write(key, seed);
  }
  let actionId = read(aKey);
  if (!actionId) {
    actionId = uuid();
    write(aKey, actionId); // a retry (even after a reload) sends the very same request
  }
  inFlight.add(key);
  // The answer is not drawn: the seat's commitment arrives with the next state like any change.
  // The action id is kept until that state shows it, so a repeat is a harmless retry.
  postJSON(actionsUrl, { type: 'deal_seed', action_id: actionId, game: next.game, hand: next.hand, seed })
    .catch((e) => {
      // No answer, or the server busy: keep both, the next state tries again. Refused: never
      // again for this hand; a hand dealt already has no use for this seed.
      if (e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 429) {
        givenUp.add(key);
        remove(aKey);
        if (e.code === 'seed_too_late') remove(key);
      }
    })
    .finally(() => inFlight.delete(key));
}
