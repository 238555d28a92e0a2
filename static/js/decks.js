// Card designs for Corazones: four decks generated as SVG strings from compact data.
// No ids, <defs> or url() references are used, so any number of cards (even hidden ones)
// can live in the same document without clashing.

export const SUITS = ['C', 'D', 'H', 'S'];
export const RANKS = ['2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A'];

const SYM = { C: '♣', D: '♦', H: '♥', S: '♠' };
const SUIT_NAME = { C: 'tréboles', D: 'diamantes', H: 'corazones', S: 'picas' };
const RANK_NAME = { T: '10', J: 'jota', Q: 'reina', K: 'rey', A: 'as' };

export const DECKS = [
  { id: 'reino', name: 'Reino', description: 'La baraja clásica del Reino: elegante, en rojo y negro, con figuras reales ornamentadas.' },
  { id: 'cuatro', name: 'Cuatro colores', description: 'Un color para cada palo e índices grandes: ideal para pantallas chicas y para distinguir los palos de un vistazo (el símbolo del palo siempre está).' },
  { id: 'jardin', name: 'Jardín', description: 'Un estilo suave e ilustrado, con flores, tonos pastel y figuras de cuento.' },
  { id: 'noche', name: 'Noche', description: 'Una baraja moderna de fondo oscuro con tinta clara, cómoda para jugar de noche.' },
];

export const suitSymbol = (s) => SYM[String(s).toUpperCase()] || '';
export const suitName = (s) => SUIT_NAME[String(s).toUpperCase()] || '';
export const rankLabel = (r) => (r === 'T' ? '10' : r);

/** Spanish accessible name of a card code: "QS" -> "reina de picas", "TH" -> "10 de corazones". */
export function cardLabel(card) {
  const c = parse(card);
  return c ? `${RANK_NAME[c.r] || c.r} de ${SUIT_NAME[c.s]}` : 'carta';
}

function parse(card) {
  const m = /^(10|[2-9TJQKA])([CDHS])$/.exec(String(card || '').trim().toUpperCase());
  return m ? { r: m[1] === '10' ? 'T' : m[1], s: m[2] } : null;
}

// ---- Suit shapes: paths centred on 0,0 inside a 100x100 box --------------------------------
const SP = {
  H: 'M0-26C-6-44-22-50-34-46C-50-40-54-20-46-4C-38 14-16 30 0 48C16 30 38 14 46-4C54-20 50-40 34-46C22-50 6-44 0-26Z',
  D: 'M0-50Q16-24 36 0Q16 24 0 50Q-16 24-36 0Q-16-24 0-50Z',
  S: 'M0-50C-10-32-48-14-48 12C-48 32-28 40-10 28C-12 38-18 46-28 50H28C18 46 12 38 10 28C28 40 48 32 48 12C48-14 10-32 0-50Z',
  C: 'M-22-24a22 22 0 1 1 44 0a22 22 0 1 1-44 0ZM-47 10a22 22 0 1 1 44 0a22 22 0 1 1-44 0ZM3 10a22 22 0 1 1 44 0a22 22 0 1 1-44 0ZM-10-2a10 10 0 1 1 20 0a10 10 0 1 1-20 0ZM5-8C5 24 12 42 26 50H-26C-12 42-5 24-5-8Z',
};

const n1 = (v) => Math.round(v * 10) / 10;

/** One suit shape at (x,y), `size` px wide, optionally upside down. */
function shape(s, x, y, size, fill, flip, extra = '') {
  return `<path d="${SP[s]}" transform="translate(${n1(x)} ${n1(y)}) scale(${+(size / 100).toFixed(3)})${flip ? ' rotate(180)' : ''}" fill="${fill}"${extra}/>`;
}

// ---- Deck data -----------------------------------------------------------------------------
const SERIF = "Georgia,'Times New Roman','Liberation Serif','Noto Serif','DejaVu Serif',serif";
const SANS = "'Helvetica Neue',Arial,'Liberation Sans',Roboto,'DejaVu Sans',sans-serif";
const ROUND = "'Trebuchet MS','Segoe UI',Verdana,'DejaVu Sans',Roboto,sans-serif";

const two = (red, black) => ({ H: red, D: red, C: black, S: black });
const STD = { ix: 30, iy: 64, fs: 62, tw: 0.84, sy: 90, ss: 36, cols: [82, 125, 168], rows: [66, 284], pip: 42, ace: 104, frame: [58, 38, 134, 274] };

const DK = {
  reino: {
    bg: '#fffdf8', edge: '#c9c0ab', font: SERIF, ink: two('#c1121f', '#17171b'), L: STD,
    pal: (s) => {
      const red = s === 'H' || s === 'D';
      return { skin: '#f7dab8', hair: '#e2a93b', a: red ? '#c1121f' : '#1f3f8f', b: '#eab92d', c: red ? '#1f3f8f' : '#c1121f', ink: '#1b1b1b', light: '#fff', fl: '#c1121f', sw: 1.1 };
    },
  },
  cuatro: {
    bg: '#ffffff', edge: '#bdbdbd', font: SANS, ink: { C: '#12813a', D: '#1456b8', H: '#d0112b', S: '#18181b' },
    L: { ix: 38, iy: 78, fs: 82, tw: 0.84, sy: 113, ss: 44, cols: [96, 125, 154], rows: [62, 288], pip: 36, ace: 92, frame: [79, 22, 92, 306] },
    pal: (s) => ({ skin: '#f6d2ae', hair: '#5b3a1e', a: { C: '#12813a', D: '#1456b8', H: '#d0112b', S: '#3a3a40' }[s], b: '#f5c431', c: '#ffffff', ink: '#111', light: '#fff', fl: '#d0112b', sw: 1.3 }),
  },
  jardin: {
    bg: '#fdf8ee', edge: '#d8cbb0', font: ROUND, ink: two('#c4475b', '#2e4a45'),
    L: { ...STD, ace: 92, frame: [58, 34, 134, 282] },
    pal: (s) => ({ skin: '#f9e2cd', hair: '#8a5a3b', a: { H: '#e58b98', D: '#f2a65a', C: '#8cbf8f', S: '#8ea4cc' }[s], b: '#f3d38a', c: '#fff3de', ink: '#5b4636', light: '#fffaf0', fl: '#e06a7c', sw: 1 }),
  },
  noche: {
    bg: '#181b22', edge: '#454b5a', font: SANS, ink: two('#ff7b8c', '#ebe6da'),
    L: { ...STD, ace: 88 },
    pal: (s) => {
      const t = { H: '#3b1f2b', D: '#3b2b1f', C: '#1f3327', S: '#232a3d' }[s];
      return { skin: '#2e323d', hair: '#111318', a: t, b: '#d8b45a', c: '#1f232c', ink: '#ebe6da', light: '#181b22', fl: '#ff7b8c', sw: 1.5 };
    },
  },
};
const deckOf = (id) => DK[id] || DK.reino;

// ---- Pip layouts: [column 0..2, row 0..1] --------------------------------------------------
const SIX = [[0, 0], [2, 0], [0, 0.5], [2, 0.5], [0, 1], [2, 1]];
const EIGHT = [[0, 0], [2, 0], [0, 1 / 3], [2, 1 / 3], [0, 2 / 3], [2, 2 / 3], [0, 1], [2, 1]];
const LAY = {
  2: [[1, 0], [1, 1]],
  3: [[1, 0], [1, 0.5], [1, 1]],
  4: [[0, 0], [2, 0], [0, 1], [2, 1]],
  5: [[0, 0], [2, 0], [1, 0.5], [0, 1], [2, 1]],
  6: SIX,
  7: [...SIX, [1, 0.25]],
  8: [...SIX, [1, 0.25], [1, 0.75]],
  9: [...EIGHT, [1, 0.5]],
  10: [...EIGHT, [1, 1 / 6], [1, 5 / 6]],
};

function pips(n, s, L, fill) {
  const [y0, y1] = L.rows;
  return LAY[n].map(([c, t]) => shape(s, L.cols[c], y0 + (y1 - y0) * t, L.pip, fill, t > 0.5)).join('');
}

function indices(r, s, d, fill) {
  const L = d.L, t = rankLabel(r);
  const fit = t.length > 1 ? ` textLength="${n1(L.fs * (L.tw || 0.9))}" lengthAdjust="spacingAndGlyphs"` : '';
  const one = `<text x="${L.ix}" y="${L.iy}" font-size="${L.fs}"${fit}>${t}</text>` + shape(s, L.ix, L.sy, L.ss, fill);
  return `<g fill="${fill}" font-family="${d.font}" font-weight="700" text-anchor="middle">${one}<g transform="rotate(180 125 175)">${one}</g></g>`;
}

// ---- Court figures: drawn in a 100x100 box, cut at y=100 (chest) ---------------------------
function figure(r, s, P, symFill) {
  const st = `stroke="${P.ink}" stroke-width="${P.sw}" stroke-linejoin="round" stroke-linecap="round"`;
  const p = (d, f, x = '') => `<path d="${d}" fill="${f}" ${st}${x}/>`;
  const line = (d, c = P.ink, w = P.sw) => `<path d="${d}" fill="none" stroke="${c}" stroke-width="${w}" stroke-linecap="round"/>`;
  const dot = (x, y, rr, f) => `<circle cx="${x}" cy="${y}" r="${rr}" fill="${f}"/>`;
  let o = '';
  // long hair behind (queen)
  if (r === 'Q') o += p('M38 36Q29 60 24 76Q34 80 42 66ZM62 36Q71 60 76 76Q66 80 58 66Z', P.hair);
  // robe, sleeves, chest panel
  o += p('M1 100V86C5 74 22 66 40 64H60C78 66 95 74 99 86V100Z', P.a);
  o += p('M1 100V86C5 78 14 72 25 69L31 100ZM99 100V86C95 78 86 72 75 69L69 100Z', P.c);
  o += p('M40 64L50 100L60 64Z', P.b);
  o += line('M4 94Q14 86 27 89M96 94Q86 86 73 89', P.b, P.sw * 2);
  o += shape(s, 50, 84, 11, symFill, false, ` stroke="${P.ink}" stroke-width="${n1(P.sw * 8)}"`);
  // neck and collar
  o += p('M44 48H56V66H44Z', P.skin);
  if (r === 'K') {
    o += p('M29 64Q50 80 71 64L73 73Q50 90 27 73Z', P.light);
    o += [36, 50, 64].map((x) => p(`M${x - 1} ${x === 50 ? 79 : 74}l1 4l1-4z`, P.ink)).join('');
  } else if (r === 'Q') {
    o += p('M30 63Q33 70 37 66Q40 74 44 69Q47 76 50 70Q53 76 56 69Q60 74 63 66Q67 70 70 63Q66 78 50 80Q34 78 30 63Z', P.light);
    o += [40, 45, 50, 55, 60].map((x) => dot(x, 72 + (x === 50 ? 2 : x === 45 || x === 55 ? 1.5 : 0), 1.4, P.b)).join('');
  } else {
    o += p('M35 63L50 76L65 63L63 71L50 82L37 71Z', P.light);
  }
  // head and face
  o += `<ellipse cx="50" cy="40" rx="12.5" ry="15" fill="${P.skin}" ${st}/>`;
  o += dot(45.2, 39, 1.6, P.ink) + dot(54.8, 39, 1.6, P.ink);
  o += line('M41.5 35.3Q45 33.4 48 35M52 35Q55 33.4 58.5 35.3M50 40L48.7 45.3H51');
  if (r === 'Q') {
    o += `<circle cx="43" cy="45" r="2.6" fill="#ef7f8c" opacity=".45"/><circle cx="57" cy="45" r="2.6" fill="#ef7f8c" opacity=".45"/>`;
    o += p('M46.6 49Q50 47.6 53.4 49Q50 51.8 46.6 49Z', '#d2293b', '');
    o += line('M43 37.6l-1.4-1.2M57 37.6l1.4-1.2');
  } else {
    o += line('M46.8 49.4Q50 51 53.2 49.4');
  }
  // hair, beard
  if (r === 'K') {
    o += p('M37.5 41Q37 58 50 62Q63 58 62.5 41Q60.5 49 56 50.5Q50 47.5 44 50.5Q39.5 49 37.5 41Z', P.hair);
    o += p('M44 48.6Q50 45.4 56 48.6Q50 50.6 44 48.6Z', P.hair);
    o += p('M37.5 41Q35 29 42 26H58Q65 29 62.5 41Q61 33 57 31H43Q39 33 37.5 41Z', P.hair);
  } else if (r === 'Q') {
    o += p('M37.5 42Q35 25 50 24Q65 25 62.5 42Q60 30 50 30.5Q40 30 37.5 42Z', P.hair);
  } else {
    o += p('M37.5 43Q34 29 42 25H58Q66 29 62.5 43Q62 34 57 31.5H43Q38 34 37.5 43Z', P.hair);
    o += `<circle cx="37.5" cy="45" r="3.2" fill="${P.hair}" ${st}/><circle cx="62.5" cy="45" r="3.2" fill="${P.hair}" ${st}/>`;
  }
  // headwear
  if (r === 'K') {
    o += p('M36 28L34 11L42 19L50 7L58 19L66 11L64 28Z', P.b);
    o += p('M35 23.5H65V29H35Z', P.c);
    o += dot(50, 26.2, 1.7, P.light) + dot(42, 26.2, 1.2, P.b) + dot(58, 26.2, 1.2, P.b);
    o += [[34, 11], [50, 7], [66, 11]].map(([x, y]) => `<circle cx="${x}" cy="${y}" r="2.2" fill="${P.b}" ${st}/>`).join('');
  } else if (r === 'Q') {
    o += p('M38 27L36.5 15L44 21L50 12L56 21L63.5 15L62 27Z', P.b);
    o += p('M37.5 24H62.5V28.5H37.5Z', P.c);
    o += shape('H', 50, 18.5, 6, symFill);
    o += [[36.5, 15], [63.5, 15]].map(([x, y]) => `<circle cx="${x}" cy="${y}" r="1.9" fill="${P.b}" ${st}/>`).join('');
  } else {
    o += p('M62 23Q77 5 90 8Q80 13 65 27Z', P.a);
    o += p('M35 30Q33 15 50 14Q67 15 65 30Z', P.c);
    o += p('M34 26.5H66V31H34Z', P.b);
  }
  // held item and hand
  if (r === 'K') {
    o += p('M82 10L85 4L88 10V66H82Z', P.light === '#fff' ? '#e4e7ec' : P.light);
    o += p('M76 66H94V70H76Z', P.b) + p('M83.5 70H86.5V84H83.5Z', P.hair);
    o += `<ellipse cx="85" cy="77" rx="5.5" ry="4.6" fill="${P.skin}" ${st}/>`;
  } else if (r === 'Q') {
    o += line('M20 97Q17 72 22 50', '#3f8a4c', 2.2);
    o += p('M19.5 74Q11 73 9 65Q17 66 19.5 74ZM20 62Q28 60 30 53Q22 54 20 62Z', '#5aa060');
    o += `<circle cx="22" cy="47" r="6.5" fill="${P.fl}" ${st}/>` + line('M22 47m-2.6 0a2.6 2.6 0 1 1 3.4 2.4M22 47m-4.6-1.4a4.6 4.6 0 0 1 7.4-3', P.ink, P.sw * 0.7);
    o += `<ellipse cx="20" cy="79" rx="5.3" ry="4.4" fill="${P.skin}" ${st}/>`;
  } else {
    o += line('M15 6V100', P.ink, 3.6) + line('M15 6V100', '#a0703f', 2);
    o += p('M15 14Q3 17 5 30Q9 23 15 25Z', P.light === '#fff' ? '#e4e7ec' : P.light) + p('M15 3L13 11H17Z', P.b);
    o += `<ellipse cx="15" cy="77" rx="5.3" ry="4.4" fill="${P.skin}" ${st}/>`;
  }
  // suit badge beside the head
  const at = { K: [19, 24], Q: [80, 26], J: [83, 44] }[r];
  o += shape(s, at[0], at[1], 15, symFill);
  return o;
}

function court(r, s, id, d, fill) {
  const P = d.pal(s);
  const [fx, fy, fw, fh] = d.L.frame;
  const cx = 125, cy = 175;
  if (id === 'jardin') {
    // single illustrated bust in an arched window with a floral garland
    const k = 1.55, ox = cx - 50 * k, oy = fy + fh - 100 * k;
    let o = `<path d="M${fx} ${fy + fh}V${fy + 60}A${fw / 2} ${fw / 2.4} 0 0 1 ${fx + fw} ${fy + 60}V${fy + fh}Z" fill="#f4ecdb" stroke="${P.ink}" stroke-width="1.6"/>`;
    o += shape(s, cx, fy + 48, 32, fill);
    // garland swag under the arch
    const gx0 = fx + 6, gx1 = fx + fw - 6, gy = fy + 84, dip = fy + 118;
    for (let i = 0; i <= 12; i++) {
      const t = i / 12, u = 1 - t;
      const x = u * u * gx0 + 2 * u * t * cx + t * t * gx1, y = u * u * gy + 2 * u * t * dip + t * t * gy;
      o += leaf(x, y, 13, (i % 2 ? 30 : -150) + (t - 0.5) * 60, i % 2 ? '#8cbf8f' : '#6fa77a');
    }
    o += flower(gx0 + 4, gy, 7, '#e9a0ab') + flower(cx, fy + 101, 8, '#f4c37a') + flower(gx1 - 4, gy, 7, '#e9a0ab');
    // a nested <svg> clips the bust to the window without needing a clipPath id
    o += `<svg x="${fx}" y="${fy}" width="${fw}" height="${fh}" viewBox="${fx} ${fy} ${fw} ${fh}"><g transform="translate(${ox} ${oy}) scale(${k})">${figure(r, s, P, fill)}</g></svg>`;
    o += `<path d="M${fx} ${fy + fh}H${fx + fw}" stroke="${P.ink}" stroke-width="1.6"/>`;
    o += flower(fx + 10, fy + fh - 12, 9, '#e9a0ab') + flower(fx + fw - 10, fy + fh - 12, 9, '#f4c37a');
    return o;
  }
  // mirrored, double-headed court in a frame
  const k = Math.min(fw / 100, (cy - fy) / 100);
  const ox = cx - 50 * k, oy = cy - 100 * k;
  const line = d === DK.noche ? P.ink : fill;
  let half = `<g transform="translate(${n1(ox)} ${n1(oy)}) scale(${n1(k * 100) / 100})">${figure(r, s, P, fill)}</g>`;
  if (id === 'cuatro') half += shape(s, cx, fy + (oy - fy) / 2 + 4, 38, fill);
  let o = `<rect x="${fx}" y="${fy}" width="${fw}" height="${fh}" fill="${d === DK.noche ? '#1d2029' : d.bg}" stroke="${line}" stroke-width="2"/>`;
  o += half + `<g transform="rotate(180 ${cx} ${cy})">${half}</g>`;
  o += `<path d="M${fx} ${cy}H${fx + fw}" stroke="${line}" stroke-width="2"/>`;
  o += `<rect x="${fx - 4}" y="${fy - 4}" width="${fw + 8}" height="${fh + 8}" fill="none" stroke="${line}" stroke-width="1" opacity=".55"/>`;
  return o;
}

function flower(x, y, rr, c, centre = '#f6d27a') {
  let o = '';
  for (let i = 0; i < 5; i++) {
    const a = (i * 72 - 90) * Math.PI / 180;
    o += `<circle cx="${n1(x + Math.cos(a) * rr * 0.62)}" cy="${n1(y + Math.sin(a) * rr * 0.62)}" r="${n1(rr * 0.5)}" fill="${c}"/>`;
  }
  return o + `<circle cx="${x}" cy="${y}" r="${n1(rr * 0.32)}" fill="${centre}"/>`;
}

function leaf(x, y, len, ang, c) {
  return `<path d="M0 0Q${len / 2} ${-len / 3} ${len} 0Q${len / 2} ${len / 3} 0 0Z" transform="translate(${n1(x)} ${n1(y)}) rotate(${n1(ang)})" fill="${c}"/>`;
}

function ace(s, id, d, fill) {
  const L = d.L;
  let o = '';
  if (id === 'reino') {
    if (s === 'S') {
      o += `<circle cx="125" cy="175" r="78" fill="none" stroke="#c9a227" stroke-width="2"/><circle cx="125" cy="175" r="72" fill="none" stroke="#c9a227" stroke-width="1"/>`;
      for (let i = 0; i < 24; i++) { const a = i * 15 * Math.PI / 180; o += `<circle cx="${n1(125 + Math.cos(a) * 75)}" cy="${n1(175 + Math.sin(a) * 75)}" r="1.6" fill="#c9a227"/>`; }
      o += shape('S', 125, 178, 118, fill) + shape('S', 125, 172, 30, '#fffdf8') + shape('S', 125, 172, 16, '#c9a227');
      return o;
    }
    return shape(s, 125, 175, L.ace, fill) + shape(s, 125, 175, L.ace * 0.42, 'none', false, ` stroke="#fff" stroke-width="${n1(150 / L.ace)}" opacity=".55"`);
  }
  if (id === 'jardin') {
    for (let i = 0; i < 14; i++) {
      const a = i * (360 / 14);
      const rad = (a * Math.PI) / 180;
      o += leaf(125 + Math.cos(rad) * 70, 175 + Math.sin(rad) * 70, 22, a + 100, i % 2 ? '#8cbf8f' : '#6fa77a');
    }
    o += flower(125, 105, 10, '#e9a0ab') + flower(125, 245, 10, '#f4c37a') + flower(55, 175, 8, '#f4c37a') + flower(195, 175, 8, '#e9a0ab');
  }
  if (id === 'noche') {
    o += `<circle cx="125" cy="175" r="66" fill="none" stroke="${d.ink.S}" stroke-width="1.2" opacity=".45"/><circle cx="125" cy="175" r="72" fill="none" stroke="#d8b45a" stroke-width="1.2" stroke-dasharray="2 6"/>`;
  }
  return o + shape(s, 125, 175, L.ace, fill);
}

function decorations(id, d) {
  if (id === 'jardin') {
    const sprig = (x, y, rot) => `<g transform="rotate(${rot} ${x} ${y})">${leaf(x, y, 16, -150, '#9cc59e')}${leaf(x, y, 16, -30, '#9cc59e')}${flower(x, y - 2, 6, '#f0b3bc')}</g>`;
    return sprig(228, 26, 0) + sprig(22, 324, 180);
  }
  if (id === 'noche') return `<rect x="9" y="9" width="232" height="332" rx="10" fill="none" stroke="#d8b45a" stroke-width="1" opacity=".35"/>`;
  return '';
}

function wrap(body, label, extra, opts = {}) {
  const size = opts.width ? ` width="${opts.width}" height="${n1(opts.width * 1.4)}"` : '';
  const cls = opts.className ? ` class="${opts.className}"` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 250 350"${size}${cls} role="img" aria-label="${opts.label || label}"${extra}>${body}</svg>`;
}

/**
 * SVG string for one card face.
 * @param {string} card  code like "QS", "TH", "2C" (also accepts "10H")
 * @param {string} deckId one of DECKS ids (unknown ids fall back to "reino")
 * @param {{width?: number, className?: string, label?: string}} [opts]
 */
export function cardSVG(card, deckId = 'reino', opts = {}) {
  const c = parse(card);
  const id = DK[deckId] ? deckId : 'reino';
  const d = DK[id];
  let o = `<rect x="1" y="1" width="248" height="348" rx="16" fill="${d.bg}" stroke="${d.edge}" stroke-width="2"/>`;
  if (!c) return wrap(o, 'carta', ` data-deck="${id}"`, opts);
  const { r, s } = c;
  const fill = d.ink[s];
  o += decorations(id, d);
  if (r === 'A') o += ace(s, id, d, fill);
  else if ('JQK'.includes(r)) o += court(r, s, id, d, fill);
  else o += pips(r === 'T' ? 10 : +r, s, d.L, fill);
  o += indices(r, s, d, fill);
  return wrap(o, cardLabel(r + s), ` data-card="${r}${s}" data-deck="${id}"`, opts);
}

/** SVG string for the back of a card of the given deck. */
export function cardBackSVG(deckId = 'reino', opts = {}) {
  const id = DK[deckId] ? deckId : 'reino';
  let o = '';
  const grid = (x0, y0, x1, y1, step, fn) => {
    let g = '';
    for (let y = y0, row = 0; y <= y1; y += step, row++) for (let x = x0 + (row % 2 ? step / 2 : 0); x <= x1; x += step) g += fn(x, y, row);
    return g;
  };
  if (id === 'reino') {
    o += `<rect x="1" y="1" width="248" height="348" rx="16" fill="#fffdf8" stroke="#c9c0ab" stroke-width="2"/><rect x="14" y="14" width="222" height="322" rx="8" fill="#a8162a"/>`;
    o += grid(26, 26, 224, 324, 20, (x, y) => `<path d="M${x} ${y - 8}L${x + 8} ${y}L${x} ${y + 8}L${x - 8} ${y}Z" fill="none" stroke="#d9596a" stroke-width="1.2"/>`);
    o += `<rect x="20" y="20" width="210" height="310" rx="5" fill="none" stroke="#eab92d" stroke-width="2"/>`;
    o += `<ellipse cx="125" cy="175" rx="58" ry="74" fill="#fffdf8" stroke="#eab92d" stroke-width="4"/><ellipse cx="125" cy="175" rx="50" ry="66" fill="none" stroke="#a8162a" stroke-width="1.5"/>`;
    o += `<path d="M103 160L99 128L113 142L125 122L137 142L151 128L147 160Z" fill="#eab92d" stroke="#7a5a10" stroke-width="1.5"/>` + shape('H', 125, 192, 48, '#c1121f');
  } else if (id === 'cuatro') {
    o += `<rect x="1" y="1" width="248" height="348" rx="16" fill="#ffffff" stroke="#bdbdbd" stroke-width="2"/><rect x="12" y="12" width="226" height="326" rx="10" fill="#1d4f91"/>`;
    o += grid(30, 30, 222, 322, 24, (x, y) => `<path d="M${x} ${y - 9}L${x + 9} ${y}L${x} ${y + 9}L${x - 9} ${y}Z" fill="#2a62ab"/>`);
    o += `<rect x="12" y="12" width="226" height="326" rx="10" fill="none" stroke="#fff" stroke-width="6"/>`;
    o += `<circle cx="125" cy="175" r="62" fill="#fff"/>`;
    o += shape('S', 101, 151, 36, '#18181b') + shape('H', 149, 151, 36, '#d0112b') + shape('C', 101, 199, 36, '#12813a') + shape('D', 149, 199, 36, '#1456b8');
  } else if (id === 'jardin') {
    o += `<rect x="1" y="1" width="248" height="348" rx="16" fill="#fdf8ee" stroke="#d8cbb0" stroke-width="2"/><rect x="12" y="12" width="226" height="326" rx="12" fill="#93b89b"/>`;
    o += grid(34, 34, 216, 316, 38, (x, y, row) => leaf(x - 9, y + 6, 14, -40, '#7aa585') + flower(x, y, 7, row % 2 ? '#fff3de' : '#f6c9cf'));
    o += `<rect x="18" y="18" width="214" height="314" rx="8" fill="none" stroke="#fff3de" stroke-width="2"/>`;
    o += `<ellipse cx="125" cy="175" rx="54" ry="64" fill="#fdf8ee" stroke="#fff3de" stroke-width="3"/>`;
    for (let i = 0; i < 12; i++) { const a = i * 30; const rad = a * Math.PI / 180; o += leaf(125 + Math.cos(rad) * 44, 175 + Math.sin(rad) * 54, 16, a + 100, '#7aa585'); }
    o += shape('H', 125, 176, 44, '#d9687a') + flower(125, 176, 10, '#f6c9cf', '#f3d38a');
  } else {
    o += `<rect x="1" y="1" width="248" height="348" rx="16" fill="#111319" stroke="#454b5a" stroke-width="2"/>`;
    let seed = 7;
    const rnd = () => ((seed = (seed * 9301 + 49297) % 233280) / 233280);
    for (let i = 0; i < 46; i++) o += `<circle cx="${n1(20 + rnd() * 210)}" cy="${n1(20 + rnd() * 310)}" r="${n1(0.6 + rnd() * 1.4)}" fill="#ebe6da" opacity="${n1(0.3 + rnd() * 0.6)}"/>`;
    o += `<rect x="12" y="12" width="226" height="326" rx="10" fill="none" stroke="#d8b45a" stroke-width="1.5"/><rect x="18" y="18" width="214" height="314" rx="7" fill="none" stroke="#d8b45a" stroke-width=".8" opacity=".6"/>`;
    o += `<path d="M${125} 110L${190} 175L125 240L60 175Z" fill="none" stroke="#d8b45a" stroke-width="1.2" opacity=".7"/>`;
    o += `<path d="M140 140A40 40 0 1 0 140 210A32 32 0 1 1 140 140Z" fill="#d8b45a"/>` + shape('H', 132, 175, 22, '#ff7b8c');
  }
  return wrap(o, 'carta boca abajo', ` data-deck="${id}" data-back="1"`, opts);
}

// ---- La Dama de Corazones ----------------------------------------------------------------
/**
 * Large illustrated bust of the Queen of Hearts for the end-of-game scene.
 * @param {{mood?: 'smile'|'wink'|'stern', frame?: boolean, width?: number, className?: string, label?: string}} [opts]
 */
export function queenSVG(opts = {}) {
  const mood = opts.mood || 'smile';
  const ink = '#3a1a1a';
  const st = `stroke="${ink}" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"`;
  const p = (d, f, x = '') => `<path d="${d}" fill="${f}" ${st}${x}/>`;
  const ln = (d, c = ink, w = 2) => `<path d="${d}" fill="none" stroke="${c}" stroke-width="${w}" stroke-linecap="round" stroke-linejoin="round"/>`;
  let o = '';
  if (opts.frame !== false) o += `<path d="M10 262V124A110 110 0 0 1 230 124V262Z" fill="#fbe9ea" stroke="#d4a437" stroke-width="4" stroke-linejoin="round"/><path d="M19 262V126A101 101 0 0 1 221 126V262" fill="none" stroke="#c1121f" stroke-width="1.5" opacity=".5"/>`;
  // hair behind: one full mass falling to the shoulders
  o += p('M82 118Q70 66 120 66Q170 66 158 118Q166 170 184 222Q160 236 142 206H98Q80 236 56 222Q74 170 82 118Z', '#7a2f1f');
  // standing lace collar behind the neck, scalloped along its top
  let fan = 'M70 206L58 156';
  const arc = (t) => [58 + 124 * t, 156 - Math.sin(Math.PI * t) * 22];
  for (let i = 0; i < 10; i++) {
    const [x0, y0] = arc(i / 10), [x1, y1] = arc((i + 1) / 10), [xm, ym] = arc((i + 0.5) / 10);
    fan += `Q${n1(xm + (xm - 120) * 0.08)} ${n1(ym - 9)} ${n1(x1)} ${n1(y1)}`;
    if (!i) fan = fan.replace('M70 206L58 156', `M70 206L${n1(x0)} ${n1(y0)}`);
  }
  o += p(fan + 'L170 206Z', '#fffaf3');
  o += ln([70, 86, 103, 120, 137, 154, 170].map((x) => `M120 200L${x} ${x === 120 ? 138 : 150 - (x < 120 ? x - 58 : 182 - x) * 0.35}`).join(''), '#e0c48a', 1.4);
  // gown and shoulders
  o += p('M26 258C30 214 58 198 96 194H144C182 198 210 214 214 258Z', '#c1121f');
  o += p('M26 258C28 228 40 212 62 203L76 258ZM214 258C212 228 200 212 178 203L164 258Z', '#8e0d1a');
  o += p('M98 194L120 258L142 194Z', '#f3d27a');
  for (const [x, y] of [[46, 238], [66, 224], [90, 244], [150, 244], [174, 224], [194, 238]]) o += shape('H', x, y, 10, '#f3d27a');
  // neck, neckline and pearls
  o += p('M108 160H132V200Q120 208 108 200Z', '#f8dcc4');
  o += ln('M96 194Q120 214 144 194', ink, 2);
  for (let i = 0; i < 9; i++) { const x = 104 + i * 4; o += `<circle cx="${x}" cy="${n1(198 + Math.sin((i / 8) * Math.PI) * 8)}" r="2" fill="#fffaf3" stroke="${ink}" stroke-width=".7"/>`; }
  o += shape('H', 120, 214, 14, '#c1121f', false, ` stroke="${ink}" stroke-width="12"`);
  // head (moved down a little onto the shoulders)
  let h = '';
  h += `<ellipse cx="120" cy="122" rx="33" ry="41" fill="#f8dcc4" ${st}/>`;
  h += `<circle cx="99" cy="136" r="7" fill="#ef7f8c" opacity=".45"/><circle cx="141" cy="136" r="7" fill="#ef7f8c" opacity=".45"/>`;
  const eye = (x, wink) => wink
    ? ln(`M${x - 9} 118Q${x} 124 ${x + 9} 118`, ink, 2.4) + ln(`M${x - 8} 120l-3 3M${x + 8} 120l3 3`, ink, 1.6)
    : `<path d="M${x - 10} 118Q${x} 108 ${x + 10} 118Q${x} 126 ${x - 10} 118Z" fill="#fff" ${st}/><circle cx="${x}" cy="117.5" r="4.6" fill="#3f7d5a"/><circle cx="${x}" cy="117.5" r="2.2" fill="#1a1a1a"/><circle cx="${x + 1.6}" cy="116" r="1.1" fill="#fff"/>` + ln(`M${x - 10} 118Q${x} 106 ${x + 10} 117M${x - 9} 114l-3-3M${x + 8} 112l2-4`, ink, 2.4);
  h += eye(105, false) + eye(135, mood === 'wink');
  h += mood === 'stern' ? ln('M94 105L114 109M146 105L126 109', '#5a2a1a', 3) : ln('M94 106Q104 99 114 104M126 104Q136 99 146 106', '#5a2a1a', 3);
  h += ln('M121 122Q119 132 116 136Q119 139 124 138', '#b07a5a', 1.8);
  h += mood === 'stern'
    ? p('M108 150Q120 147 132 150Q120 155 108 150Z', '#c1121f')
    : p('M106 148Q113 144 120 147Q127 144 134 148Q128 158 120 158Q112 158 106 148Z', '#c1121f') + ln('M107 148.5Q120 152 133 148.5', ink, 1.2);
  // hair front: parted fringe framing the face
  h += p('M87 130Q80 84 120 80Q160 84 153 130Q150 104 136 94Q126 102 112 100Q96 106 87 130Z', '#8a3a24');
  h += shape('H', 86, 152, 9, '#c1121f', false, ` stroke="${ink}" stroke-width="10"`) + shape('H', 154, 152, 9, '#c1121f', false, ` stroke="${ink}" stroke-width="10"`);
  h += ln('M86 138V147M154 138V147', '#d4a437', 1.6);
  // crown
  h += p('M88 88L82 44L100 64L110 36L120 60L130 36L140 64L158 44L152 88Z', '#f3c843');
  h += p('M87 80H153V92H87Z', '#c1121f');
  for (const x of [96, 108, 132, 144]) h += `<circle cx="${x}" cy="86" r="2.6" fill="#fffaf3" stroke="${ink}" stroke-width="1"/>`;
  h += shape('H', 120, 86, 13, '#f3c843', false, ` stroke="${ink}" stroke-width="10"`);
  for (const [x, y] of [[82, 44], [110, 36], [130, 36], [158, 44]]) h += shape('H', x, y - 4, 11, '#c1121f', false, ` stroke="${ink}" stroke-width="12"`);
  h += shape('H', 120, 58, 16, '#c1121f', false, ` stroke="${ink}" stroke-width="10"`);
  o += `<g transform="translate(0 10)">${h}</g>`;
  // rose pinned on the gown
  o += `<circle cx="168" cy="214" r="11" fill="#e0303f" ${st}/>` + ln('M168 214m-4 0a4 4 0 1 1 5 3.6M168 214m-7.5-2a7.5 7.5 0 0 1 12-5', ink, 1.3);
  o += `<path d="M178 220Q190 218 194 210Q184 210 178 220Z" fill="#4f9a5a" ${st}/>`;
  const size = opts.width ? ` width="${opts.width}" height="${n1(opts.width * 280 / 240)}"` : '';
  const cls = opts.className ? ` class="${opts.className}"` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 240 ${opts.frame !== false ? 280 : 260}"${size}${cls} role="img" aria-label="${opts.label || 'la Dama de Corazones'}">${o}</svg>`;
}

/** Small discreet badge: the Queen's eye, watching whoever collects hearts. */
export function queenEyeSVG(opts = {}) {
  const ink = '#3a1a1a';
  let o = `<circle cx="24" cy="24" r="22" fill="#7a0f1f" stroke="#e2b43c" stroke-width="2.5"/>`;
  o += `<path d="M17 11L16 5L20 8L24 3.5L28 8L32 5L31 11Z" fill="#e2b43c"/>`;
  o += `<path d="M7 25Q24 9 41 25Q24 39 7 25Z" fill="#fff8ee" stroke="${ink}" stroke-width="1.4"/>`;
  o += `<circle cx="24" cy="25" r="7.5" fill="#c1121f"/>` + shape('H', 24, 25.5, 8, '#2a0a0a') + `<circle cx="26.5" cy="22" r="1.5" fill="#fff"/>`;
  o += `<path d="M11 17l-2.5-3M17 13.5l-1.2-3.4M24 12v-3.4M31 13.5l1.2-3.4M37 17l2.5-3" fill="none" stroke="#f3d27a" stroke-width="1.6" stroke-linecap="round"/>`;
  o += `<path d="M10 34Q24 41 38 34" fill="none" stroke="#e2b43c" stroke-width="1.4" stroke-linecap="round"/>`;
  const size = opts.width ? ` width="${opts.width}" height="${opts.width}"` : '';
  const cls = opts.className ? ` class="${opts.className}"` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"${size}${cls} role="img" aria-label="${opts.label || 'la Dama de Corazones vigila'}">${o}</svg>`;
}
