// The table's links to its records: «Ver la repetición» at the end scene, and in the menu the
// previous games of a rematch series and the review of the hands already played (docs/RECORDS.md).
import { h } from './util.js';
import { getJSON } from './api.js';

let games = null;
let asked = 0;

/** The end scene's link to the replay of the game that just ended. */
export function replayLink(tableId, gameNumber) {
  return h('a.btn.btn-small.replay-link', { href: `/t/${tableId}/partidas/${gameNumber}`, id: 'replay-link' }, 'Ver la repetición');
}

/** The end scene's «Análisis»: the replay, where Difícil's review of this player's game is asked. */
export function analysisLink(tableId, gameNumber) {
  return h('a.btn.btn-small.analysis-link', { href: `/t/${tableId}/partidas/${gameNumber}?analisis=1`, id: 'analysis-link' }, 'Análisis');
}

/** Menu items: «Repasar las manos» during a game (seated, a hand completed), and the finished
 * games of this table. The list is read when the menu opens; ``rerender`` redraws it once read. */
export function recordsMenuItems(tableId, state, rerender) {
  const t = (state && state.table) || {};
  const v = state && state.view;
  const out = [];
  const seated = state && state.me && state.me.seat != null;
  if (seated && t.status === 'playing' && v && (v.history || []).length) {
    out.push(h('a.btn.menu-item', { href: `/t/${tableId}/repaso`, id: 'menu-review' }, 'Repasar las manos jugadas'));
  }
  if ((t.game_number || 0) > 1 || t.status === 'finished') {
    const now = Date.now();
    if (now - asked > 5000) {
      asked = now;
      getJSON(`/api/tables/${tableId}/games`).then((r) => { games = r.games || []; rerender(); }).catch(() => {});
    }
    if (games && games.length) {
      out.push(h('h3', null, 'Partidas anteriores'), h('ul.menu-games', null, games.map((g) => h('li', null,
        h('a', { href: g.url }, `Partida ${g.game_number}`),
        ` · ${g.players.map((p, s) => `${p} ${g.totals[s]}`).join(', ')}`))));
    }
  }
  return out;
}
