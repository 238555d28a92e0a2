// Keyboard and gamepad for the table: ← → move between cards, Enter chooses and plays (or marks),
// P/Esc menu, M sound, F fullscreen. Gamepad: d-pad moves, A or X chooses, Start menu, Back sound.

function typing(e) {
  const t = e.target;
  return !!(t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName)));
}

export function setupInput(h) {
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (typing(e)) return;
    const k = e.key;
    if (k === 'ArrowLeft' || k === 'ArrowRight') {
      if (h.isMenuOpen()) return;
      e.preventDefault();
      h.moveFocus(k === 'ArrowLeft' ? -1 : 1);
    } else if (k === 'Home' || k === 'End') {
      if (h.isMenuOpen()) return;
      e.preventDefault();
      h.moveFocus(k === 'Home' ? -99 : 99);
    } else if (k === 'Enter' || k === ' ') {
      const onCard = e.target && e.target.closest && e.target.closest('#hand .card');
      if (onCard) {
        e.preventDefault();
        h.chooseFocused();
      }
    } else if (k === 'p' || k === 'P') {
      e.preventDefault();
      h.openMenu();
    } else if (k === 'Escape') {
      // An open dialog closes itself on Esc; with none open, Esc opens the menu.
      if (!h.isMenuOpen()) { e.preventDefault(); h.openMenu(); }
    } else if (k === 'm' || k === 'M') {
      h.toggleSound();
    } else if (k === 'f' || k === 'F') {
      h.fullscreen();
    }
  });

  // Gamepad API: poll while a pad is connected, act on button edges.
  let running = false;
  const prev = new Map();
  function frame() {
    const pads = navigator.getGamepads ? [...navigator.getGamepads()].filter(Boolean) : [];
    if (!pads.length) { running = false; return; }
    for (const p of pads) {
      const was = prev.get(p.index) || [];
      const now = p.buttons.map((b) => b.pressed || b.value > 0.5);
      const axis = p.axes && p.axes.length ? p.axes[0] : 0;
      now.push(axis < -0.6, axis > 0.6);
      const edge = (i) => now[i] && !was[i];
      if (edge(14) || edge(now.length - 2)) h.moveFocus(-1);
      if (edge(15) || edge(now.length - 1)) h.moveFocus(1);
      if (edge(0) || edge(2)) {
        const d = document.activeElement;
        if (d && d.closest && d.closest('#hand .card')) h.chooseFocused();
        else if (d && d.tagName === 'BUTTON' && !h.isMenuOpen()) h.moveFocus(0);
        else if (d && d.tagName === 'BUTTON') d.click();
        else h.moveFocus(0);
      }
      if (edge(9)) h.openMenu();
      if (edge(8)) h.toggleSound();
      prev.set(p.index, now);
    }
    requestAnimationFrame(frame);
  }
  window.addEventListener('gamepadconnected', () => {
    if (!running) { running = true; requestAnimationFrame(frame); }
  });
}
