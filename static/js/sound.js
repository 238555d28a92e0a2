// Sounds for Corazones, synthesised with Web Audio (nothing is downloaded).
// The AudioContext is created lazily on the first play() after a user gesture; every call is
// wrapped so that missing or blocked audio never throws.

const KEY = 'corazones.sound';
let ctx = null;
let out = null;
let noiseBuf = null;
let gestured = false;
let enabled = load();

function load() {
  try {
    const v = globalThis.localStorage && localStorage.getItem(KEY);
    return v == null ? true : !['0', 'false', 'off'].includes(v);
  } catch { return true; }
}
function save() {
  try { localStorage.setItem(KEY, enabled ? '1' : '0'); } catch { /* private mode, no storage */ }
}

function userActive() {
  const ua = globalThis.navigator && navigator.userActivation;
  return gestured || !!(ua && ua.hasBeenActive);
}

function onGesture() {
  gestured = true;
  if (ctx && ctx.state === 'suspended') ctx.resume().catch(() => {});
}
if (typeof window !== 'undefined' && window.addEventListener) {
  for (const ev of ['pointerdown', 'keydown', 'touchend', 'click']) window.addEventListener(ev, onGesture, { capture: true, passive: true });
}

function audio() {
  if (ctx) return ctx;
  const AC = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!AC) return null;
  try {
    ctx = new AC();
    const comp = ctx.createDynamicsCompressor();
    comp.threshold.value = -14;
    comp.ratio.value = 6;
    out = ctx.createGain();
    out.gain.value = 0.9;
    out.connect(comp);
    comp.connect(ctx.destination);
  } catch {
    ctx = null;
  }
  return ctx;
}

// ---- building blocks -----------------------------------------------------------------------
function env(g, t, vol, attack, dur, hold = 0) {
  const v = Math.max(vol, 0.0002);
  g.gain.setValueAtTime(0.0001, t);
  g.gain.exponentialRampToValueAtTime(v, t + attack);
  if (hold) g.gain.setValueAtTime(v, t + attack + hold);
  g.gain.exponentialRampToValueAtTime(0.0001, t + dur);
}

/** Oscillator note. f may glide to f2; vib adds vibrato [rate Hz, depth Hz]. */
function tone({ t = 0, f, f2, glide = 0, dur = 0.3, vol = 0.2, type = 'sine', attack = 0.01, hold = 0, vib, filter, dest }) {
  const now = ctx.currentTime + t;
  const o = ctx.createOscillator();
  const g = ctx.createGain();
  o.type = type;
  o.frequency.setValueAtTime(f, now);
  if (f2) o.frequency.exponentialRampToValueAtTime(f2, now + (glide || dur));
  if (vib) {
    const l = ctx.createOscillator();
    const lg = ctx.createGain();
    l.frequency.value = vib[0];
    lg.gain.value = vib[1];
    l.connect(lg).connect(o.frequency);
    l.start(now);
    l.stop(now + dur + 0.05);
  }
  env(g, now, vol, attack, dur, hold);
  let node = o;
  if (filter) {
    const bq = ctx.createBiquadFilter();
    bq.type = filter[0];
    bq.frequency.value = filter[1];
    bq.Q.value = filter[2] || 0.8;
    node = node.connect(bq);
  }
  node.connect(g).connect(dest || out);
  o.start(now);
  o.stop(now + dur + 0.05);
  return o;
}

/** Filtered white noise burst; the filter frequency may sweep from f to f2. */
function noise({ t = 0, dur = 0.1, vol = 0.3, type = 'bandpass', f = 2000, f2, q = 0.8, attack = 0.004 }) {
  if (!noiseBuf) {
    noiseBuf = ctx.createBuffer(1, ctx.sampleRate, ctx.sampleRate);
    const d = noiseBuf.getChannelData(0);
    for (let i = 0; i < d.length; i++) d[i] = Math.random() * 2 - 1;
  }
  const now = ctx.currentTime + t;
  const src = ctx.createBufferSource();
  src.buffer = noiseBuf;
  const bq = ctx.createBiquadFilter();
  bq.type = type;
  bq.Q.value = q;
  bq.frequency.setValueAtTime(f, now);
  if (f2) bq.frequency.exponentialRampToValueAtTime(f2, now + dur);
  const g = ctx.createGain();
  env(g, now, vol, attack, dur);
  src.connect(bq).connect(g).connect(out);
  src.start(now, Math.random() * 0.5);
  src.stop(now + dur + 0.05);
}

function buzz() {
  // soft clipper to give the party horn its reedy rasp
  const ws = ctx.createWaveShaper();
  const n = 1024;
  const c = new Float32Array(n);
  for (let i = 0; i < n; i++) { const x = (i / (n - 1)) * 2 - 1; c[i] = Math.tanh(x * 3); }
  ws.curve = c;
  return ws;
}

// ---- the sounds ----------------------------------------------------------------------------
const SOUNDS = {
  card() {
    noise({ dur: 0.08, vol: 0.9, f: 2400, q: 0.6 });
    tone({ f: 190, f2: 90, dur: 0.09, vol: 0.4 });
  },
  trick() {
    [0, 0.06, 0.12].forEach((t, i) => noise({ t, dur: 0.09, vol: 0.5 + i * 0.1, f: 1500, f2: 3600, q: 0.9 }));
    tone({ t: 0.2, f: 150, f2: 80, dur: 0.12, vol: 0.35 });
  },
  pass() {
    noise({ dur: 0.32, vol: 0.65, f: 500, f2: 3200, q: 1.2, attack: 0.06 });
    noise({ t: 0.1, dur: 0.28, vol: 0.45, f: 700, f2: 4000, q: 1.2, attack: 0.05 });
  },
  turn() {
    tone({ f: 880, dur: 0.55, vol: 0.18, type: 'sine' });
    tone({ f: 1760, dur: 0.3, vol: 0.04, type: 'sine' });
    tone({ t: 0.13, f: 1318.5, dur: 0.75, vol: 0.18, type: 'sine' });
    tone({ t: 0.13, f: 2637, dur: 0.35, vol: 0.035, type: 'sine' });
  },
  hearts() {
    noise({ dur: 0.14, vol: 0.4, type: 'highpass', f: 3500, q: 0.5 });
    [2093, 1760, 1397, 1047, 880].forEach((f, i) => tone({ t: 0.03 + i * 0.06, f, dur: 0.35, vol: 0.11, type: 'triangle' }));
  },
  queen() {
    tone({ f: 70, f2: 46, dur: 0.9, vol: 0.35, type: 'sine', attack: 0.01 });
    [110, 130.8, 155.6, 185].forEach((f, i) => tone({ t: 0.04 + i * 0.03, f, dur: 1.3, vol: 0.07, type: 'sawtooth', attack: 0.05, vib: [5.5, 1.5], filter: ['lowpass', 900, 1] }));
  },
  error() {
    tone({ f: 165, dur: 0.1, vol: 0.16, type: 'square', filter: ['lowpass', 1400, 0.7] });
    tone({ t: 0.13, f: 130, dur: 0.16, vol: 0.16, type: 'square', filter: ['lowpass', 1200, 0.7] });
  },
  cornetita() {
    // a blowout party horn: a short toot, then a long nasal blast that rises, wobbles and sags
    const sh = buzz();
    const bp = ctx.createBiquadFilter();
    bp.type = 'bandpass';
    bp.frequency.value = 1300;
    bp.Q.value = 1.3;
    const g = ctx.createGain();
    g.gain.value = 0.5;
    sh.connect(bp).connect(g).connect(out);
    const horn = (t, dur, f0, f1, fEnd) => {
      const now = ctx.currentTime + t;
      for (const [type, mul, vol] of [['sawtooth', 1, 0.32], ['square', 1.005, 0.18]]) {
        const o = ctx.createOscillator();
        const e = ctx.createGain();
        o.type = type;
        o.frequency.setValueAtTime(f0 * mul, now);
        o.frequency.exponentialRampToValueAtTime(f1 * mul, now + 0.08);
        o.frequency.setValueAtTime(f1 * mul, now + dur * 0.7);
        o.frequency.exponentialRampToValueAtTime(fEnd * mul, now + dur);
        const l = ctx.createOscillator();
        const lg = ctx.createGain();
        l.frequency.value = 9;
        lg.gain.value = f1 * 0.018;
        l.connect(lg).connect(o.frequency);
        env(e, now, vol, 0.03, dur + 0.04, dur * 0.8);
        o.connect(e).connect(sh);
        o.start(now); l.start(now);
        o.stop(now + dur + 0.08); l.stop(now + dur + 0.08);
      }
      noise({ t, dur, vol: 0.08, f: 3000, q: 1.5, attack: 0.03 });
    };
    horn(0, 0.16, 300, 415, 400);
    horn(0.24, 0.85, 320, 440, 360);
  },
  win() {
    [523.25, 659.25, 783.99, 1046.5].forEach((f, i) => tone({ t: i * 0.1, f, dur: 0.35, vol: 0.14, type: 'triangle' }));
    [523.25, 659.25, 783.99, 1046.5].forEach((f) => tone({ t: 0.45, f, dur: 1.1, vol: 0.09, type: 'triangle', attack: 0.02 }));
    tone({ t: 0.45, f: 2093, dur: 0.6, vol: 0.03 });
  },
  lose() {
    [196, 185, 174.6].forEach((f, i) => tone({ t: i * 0.38, f, f2: f * 0.97, dur: 0.34, vol: 0.16, type: 'sawtooth', attack: 0.03, hold: 0.18, filter: ['lowpass', 800, 2] }));
    tone({ t: 1.14, f: 164.8, f2: 150, glide: 1.1, dur: 1.1, vol: 0.16, type: 'sawtooth', attack: 0.03, hold: 0.6, vib: [6, 4], filter: ['lowpass', 700, 2] });
  },
};

export const sound = {
  get enabled() { return enabled; },
  set enabled(v) { this.setEnabled(v); },
  names: Object.keys(SOUNDS),
  setEnabled(b) {
    enabled = !!b;
    save();
    try {
      if (ctx && !enabled && ctx.state === 'running') ctx.suspend().catch(() => {});
      if (ctx && enabled && ctx.state === 'suspended') ctx.resume().catch(() => {});
    } catch { /* ignore */ }
    return enabled;
  },
  toggle() { return this.setEnabled(!enabled); },
  /** Play a named sound; silently does nothing if muted, before a gesture or without audio. */
  play(name) {
    try {
      if (!enabled || !SOUNDS[name] || !userActive()) return false;
      const a = audio();
      if (!a) return false;
      if (a.state === 'suspended') a.resume().catch(() => {});
      SOUNDS[name]();
      return true;
    } catch {
      return false;
    }
  },
};

export default sound;
