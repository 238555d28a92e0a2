// «Verificar el reparto» in the browser: a port of rules/deal.py's verifier (docs/FAIR_DEAL.md).
// Same checks, same order, the same Spanish lines byte for byte; tests/browser/test_deal_verify.py
// runs it against the Python reference on the test vectors and on every kind of tampering.
//
// To see a record as Python's json.loads does (an integer is not a float, the order of an object's
// keys is kept, numbers of any size), parseJSON() reads the text into "Python values": null,
// booleans, strings, BigInt for integers, Number for floats, arrays, and Map for objects.
// verifyJSON(text) is exact; verifyRecord(value) also accepts an already parsed JS value (a Number
// that is a whole number then counts as an integer, since JSON.parse forgot how it was written).
// No dependency, no build step: SHA-256 is crypto.subtle.digest (a secure context: https or local).

export const RECORD_FORMAT = 'corazones/deal-record/v1';
const SERVER_TAG = 'corazones/deal-commit/v1';
const SEAT_TAG = 'corazones/seat-commit/v1';
const KEY_TAG = 'corazones/deal-key/v1';
const SERVER_SEAT_TAG = 'corazones/server-seat-seed/v1';
const SEED_BYTES = 32;
const SEATS = 4;
const U64_END = 1n << 64n;

const SUITS = 'CDHS';
const RANKS = '23456789TJQKA';
export const DECK = [...SUITS].flatMap((s) => [...RANKS].map((r) => r + s));
const RANK_NAMES = { T: '10' };
const SUIT_SYMBOLS = { C: '♣', D: '♦', H: '♥', S: '♠' };
const cardLabel = (c) => (RANK_NAMES[c[0]] || c[0]) + SUIT_SYMBOLS[c[1]];

// ------------------------------------------------------------------ bytes and hashes

const utf8 = new TextEncoder();

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** One field of a hashed message: its length as 4 bytes big-endian, then the bytes. */
function field(data) {
  const out = new Uint8Array(4 + data.length);
  new DataView(out.buffer).setUint32(0, data.length);
  out.set(data, 4);
  return out;
}

/** A number (game, hand, seat, counter) as 8 bytes big-endian. */
function u64(n) {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n));
  return out;
}

const text = (s) => utf8.encode(s);
const context = (table, game, hand) => [field(text(table)), field(u64(game)), field(u64(hand))];

async function sha256(bytes) {
  if (!globalThis.crypto || !crypto.subtle) throw new Error('crypto.subtle');
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

export const toHex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

export function fromHex(hex) {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new Error('hex');
  return Uint8Array.from(hex.match(/../g) || [], (b) => parseInt(b, 16));
}

function checkSeed(seed) {
  if (seed.length !== SEED_BYTES) throw new Error(`a seed has ${SEED_BYTES} bytes, not ${seed.length}`);
}

/** The published commitment to `seed` (hex): the server's with no seat, else that seat's. */
export async function commit(seed, table, game, hand, seat = null) {
  checkSeed(seed);
  const parts = seat == null
    ? [field(text(SERVER_TAG)), ...context(table, game, hand), field(seed)]
    : [field(text(SEAT_TAG)), ...context(table, game, hand), field(u64(seat)), field(seed)];
  return toHex(await sha256(concat(parts)));
}

/** The seed the server contributes for a robot or a silent page (bytes). */
export async function serverSeatSeed(serverSeed, table, game, hand, seat) {
  checkSeed(serverSeed);
  return sha256(concat([field(text(SERVER_SEAT_TAG)), ...context(table, game, hand),
    field(u64(seat)), field(serverSeed)]));
}

/** SHA-256 over the key tag, the hand's context, the server seed and seats 0..3's seeds. */
export async function dealKey(serverSeed, seatSeeds, table, game, hand) {
  if (seatSeeds.length !== SEATS) throw new Error('a deal takes exactly four seat seeds');
  for (const s of [serverSeed, ...seatSeeds]) checkSeed(s);
  return sha256(concat([field(text(KEY_TAG)), ...context(table, game, hand), field(serverSeed),
    ...seatSeeds.map(field)]));
}

/** The hand's deck in dealing order: SHA-256(K ‖ counter) read as 32-bit big-endian words feeds
 * a Fisher-Yates shuffle over DECK that draws by rejection sampling (no modulo bias). */
export async function deriveDeck(serverSeed, seatSeeds, table, game, hand) {
  const key = await dealKey(serverSeed, seatSeeds, table, game, hand);
  let counter = 0n;
  let words = [];
  const next = async () => {
    if (!words.length) {
      const block = await sha256(concat([key, u64(counter)]));
      counter += 1n;
      const view = new DataView(block.buffer);
      words = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => view.getUint32(i * 4));
    }
    return words.shift();
  };
  const deck = [...DECK];
  for (let i = deck.length - 1; i > 0; i -= 1) {
    const n = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % n);
    let w = await next();
    while (w >= limit) w = await next();
    const j = w % n;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

// ------------------------------------------------------------------ JSON as Python reads it

class JSONError extends Error {}

/** Parse JSON text as Python's json.loads: integers as BigInt, objects as Map (key order kept,
 * a repeated key keeps its first place and its last value), NaN and ±Infinity accepted. */
export function parseJSON(src) {
  let i = 0;
  const ws = () => { while (i < src.length && ' \t\n\r'.includes(src[i])) i += 1; };
  const fail = () => { throw new JSONError(`JSON inválido en la posición ${i}`); };
  const word = (w, v) => { if (src.startsWith(w, i)) { i += w.length; return v; } return fail(); };
  const NUM = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
  function string() {
    i += 1;
    let out = '';
    for (;;) {
      if (i >= src.length) fail();
      const c = src[i];
      if (c === '"') { i += 1; return out; }
      if (c < ' ') fail();
      if (c !== '\\') { out += c; i += 1; continue; }
      const e = src[i + 1];
      const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e in simple) { out += simple[e]; i += 2; continue; }
      if (e !== 'u' || !/^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6))) fail();
      out += String.fromCharCode(parseInt(src.slice(i + 2, i + 6), 16));
      i += 6;
    }
  }
  function value() {
    ws();
    const c = src[i];
    if (c === '{') {
      i += 1;
      const map = new Map();
      ws();
      if (src[i] === '}') { i += 1; return map; }
      for (;;) {
        ws();
        if (src[i] !== '"') fail();
        const k = string();
        ws();
        if (src[i] !== ':') fail();
        i += 1;
        map.set(k, value());
        ws();
        if (src[i] === ',') { i += 1; continue; }
        if (src[i] === '}') { i += 1; return map; }
        fail();
      }
    }
    if (c === '[') {
      i += 1;
      const list = [];
      ws();
      if (src[i] === ']') { i += 1; return list; }
      for (;;) {
        list.push(value());
        ws();
        if (src[i] === ',') { i += 1; continue; }
        if (src[i] === ']') { i += 1; return list; }
        fail();
      }
    }
    if (c === '"') return string();
    if (c === 'n') return word('null', null);
    if (c === 't') return word('true', true);
    if (c === 'f') return word('false', false);
    if (c === 'N') return word('NaN', NaN);
    if (c === 'I') return word('Infinity', Infinity);
    if (src.startsWith('-Infinity', i)) return word('-Infinity', -Infinity);
    NUM.lastIndex = i;
    const m = NUM.exec(src);
    if (!m) fail();
    i = NUM.lastIndex;
    return m[1] || m[2] ? Number(m[0]) : BigInt(m[0]);
  }
  const out = value();
  ws();
  if (i !== src.length) fail();
  return out;
}

/** A parsed JS value (JSON.parse's, or built by hand) as parseJSON would give it. */
export function fromJS(v) {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(fromJS);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, fromJS(x)]));
  if (v && typeof v === 'object') return new Map(Object.entries(v).map(([k, x]) => [k, fromJS(x)]));
  return v;
}

const isMap = (v) => v instanceof Map;
const isInt = (v) => typeof v === 'bigint';

const NONPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function reprStr(s) {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x7f || !NONPRINTABLE.test(ch)) out += ch;
    else if (cp < 0x100) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return out + quote;
}

function reprFloat(x) {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (Object.is(x, -0)) return '-0.0';
  const [mant, e] = Math.abs(x).toExponential().split('e');
  const digits = mant.replace('.', '');
  const exp = Number(e);
  const sign = x < 0 ? '-' : '';
  if (exp >= -4 && exp < 16) {
    let s;
    if (exp < 0) s = `0.${'0'.repeat(-exp - 1)}${digits}`;
    else if (digits.length > exp + 1) s = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
    else s = `${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
    return sign + s;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/** Python's repr() of a value parsed from JSON. */
export function pyRepr(v) {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (isInt(v)) return v.toString();
  if (typeof v === 'number') return reprFloat(v);
  if (typeof v === 'string') return reprStr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (isMap(v)) return `{${[...v].map(([k, x]) => `${reprStr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  return String(v);
}

// ------------------------------------------------------------------ datetime.fromisoformat

const isLeap = (y) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const daysInMonth = (y, m) => [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
/** The proleptic Gregorian ordinal of y-m-d (0001-01-01 is day 1). */
function ordinal(y, m, d) {
  const py = y - 1;
  let days = py * 365 + Math.floor(py / 4) - Math.floor(py / 100) + Math.floor(py / 400);
  for (let k = 1; k < m; k += 1) days += daysInMonth(y, k);
  return days + d;
}
function fromOrdinal(n) {
  let y = Math.max(1, Math.floor(n / 365.2425));
  while (ordinal(y + 1, 1, 1) <= n) y += 1;
  while (y > 1 && ordinal(y, 1, 1) > n) y -= 1;
  let m = 1;
  while (m < 12 && ordinal(y, m + 1, 1) <= n) m += 1;
  return [y, m, n - ordinal(y, m, 1) + 1];
}

// CPython's C parser (Modules/_datetimemodule.c, 3.11) works on the UTF-8 bytes with a NUL at the
// end; these functions follow it step by step, so that what Python accepts (and how it reads
// it) is exactly what this accepts.
const NUL = 0;
const ch = (c) => c.charCodeAt(0);
const isDigit = (b) => b >= 48 && b <= 57;

function parseDigits(b, p, n) {
  let v = 0;
  for (let k = 0; k < n; k += 1) {
    const d = b[p + k] - 48;
    if (!(d >= 0 && d <= 9)) return null;
    v = v * 10 + d;
  }
  return [p + n, v];
}

function separatorAt(b, len) {
  if (len === 7) return 7;
  if (b[4] === ch('-')) {
    if (b[5] === ch('W')) {
      if (len < 8) return -1;
      if (len > 8 && b[8] === ch('-')) {
        if (len === 9) return -1;
        if (len > 10 && isDigit(b[10])) return 8;
        return 10;
      }
      return 8;
    }
    return 10;
  }
  if (b[4] === ch('W')) {
    let idx = 7;
    while (idx < len && isDigit(b[idx])) idx += 1;
    if (idx < 9) return idx;
    return idx % 2 === 0 ? 7 : 8;
  }
  return 8;
}

function isoToYmd(year, week, day) {
  if (year < 1 || year > 9999) return null;
  if (!(week > 0 && week < 53)) {
    const first = ordinal(year, 1, 1) % 7;
    if (!(week === 53 && (first === 4 || (first === 3 && isLeap(year))))) return null;
  }
  if (!(day > 0 && day < 8)) return null;
  const first = ordinal(year, 1, 1);
  const weekday = (first + 6) % 7;
  let monday = first - weekday;
  if (weekday > 3) monday += 7;
  return fromOrdinal(monday + (week - 1) * 7 + (day - 1));
}

function parseDate(b, len) {
  let r = parseDigits(b, 0, 4);
  if (!r) return null;
  let [p] = r;
  const year = r[1];
  const sep = b[p] === ch('-');
  if (sep) p += 1;
  if (b[p] === ch('W')) {
    r = parseDigits(b, p + 1, 2);
    if (!r) return null;
    [p] = r;
    const week = r[1];
    let day = 1;
    if (p < len) {
      if (sep && b[p++] !== ch('-')) return null;
      r = parseDigits(b, p, 1);
      if (!r) return null;
      day = r[1];
    }
    return isoToYmd(year, week, day);
  }
  r = parseDigits(b, p, 2);
  if (!r) return null;
  [p] = r;
  const month = r[1];
  if (sep && b[p++] !== ch('-')) return null;
  r = parseDigits(b, p, 2);
  if (!r) return null;
  return [year, month, r[1]];
}

const CORRECTION = [100000, 10000, 1000, 100, 10];

/** [rv, hh, mm, ss, us]: rv < 0 an error, 1 something follows, 0 the end. */
function parseHMSF(b, p, end) {
  const v = [0, 0, 0];
  let us = 0;
  let sep = true;
  for (let i = 0; i < 3; i += 1) {
    const r = parseDigits(b, p, 2);
    if (!r) return [-3];
    [p, v[i]] = r;
    const c = b[p++];
    if (i === 0) sep = c === ch(':');
    if (p >= end) return [c !== NUL ? 1 : 0, ...v, us];
    if (sep && c === ch(':')) continue;
    if (c === ch('.') || c === ch(',')) break;
    if (!sep) p -= 1;
    else return [-4];
  }
  const take = Math.min(end - p, 6);
  const r = parseDigits(b, p, take);
  if (!r) return [-3];
  [p, us] = r;
  if (take < 6 && take > 0) us *= CORRECTION[take - 1];
  while (isDigit(b[p])) p += 1;
  return [b[p] !== NUL ? 1 : 0, ...v, us];
}

/** Python's datetime.fromisoformat (CPython 3.11): null when it raises; else the fields, the
 * offset in microseconds (null: no time zone) and the moment in microseconds UTC (BigInt). */
export function fromIsoformat(s) {
  const raw = utf8.encode(s);
  const len = raw.length;
  const b = new Uint8Array(len + 16); // NULs past the end, as C reads them
  b.set(raw);
  const at = separatorAt(b, len);
  const date = parseDate(b, at);
  if (!date) return null;
  let hms = [0, 0, 0, 0];
  let offset = null;
  if (len > at) {
    let p = at;
    const lead = b[p];
    p += lead < 0x80 ? 1 : (lead & 0xf0) === 0xe0 ? 3 : (lead & 0xf0) === 0xf0 ? 4 : 2;
    let tz = p;
    do {
      if (b[tz] === ch('Z') || b[tz] === ch('+') || b[tz] === ch('-')) break;
      tz += 1;
    } while (tz < len);
    const [rv, ...t] = parseHMSF(b, p, tz);
    if (rv < 0) return null;
    hms = t;
    if (tz >= len) {
      if (rv === 1) return null;
    } else if (b[tz] === ch('Z')) {
      if (b[tz + 1] !== NUL) return null;
      offset = 0;
    } else {
      const sign = b[tz] === ch('-') ? -1 : 1;
      const [zr, zh, zm, zs, zus] = parseHMSF(b, tz + 1, len);
      if (zr !== 0) return null;
      const secs = zh * 3600 + zm * 60 + zs;
      // CPython takes a zero number of seconds for UTC, whatever the microseconds.
      offset = secs === 0 ? 0 : sign * (secs * 1e6 + zus);
      if (Math.abs(offset) >= 86400e6) return null;
    }
  }
  const [year, month, day] = date;
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return null;
  }
  const [hh, mm, ss, us] = hms;
  if (hh > 23 || mm > 59 || ss > 59) return null;
  const local = BigInt(ordinal(year, month, day)) * 86400000000n
    + BigInt(((hh * 60 + mm) * 60 + ss) * 1e6 + us);
  return { year, month, day, hh, mm, ss, us, offset, utc: local - BigInt(offset || 0) };
}

const pad = (n, w = 2) => String(n).padStart(w, '0');

/** datetime.isoformat(timespec='milliseconds') of an aware moment. */
function isoMillis(d) {
  let out = `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}T${pad(d.hh)}:${pad(d.mm)}:${pad(d.ss)}.${pad(Math.floor(d.us / 1000), 3)}`;
  const sign = d.offset < 0 ? '-' : '+';
  let off = Math.abs(d.offset);
  const oh = Math.floor(off / 3600e6); off -= oh * 3600e6;
  const om = Math.floor(off / 60e6); off -= om * 60e6;
  const os = Math.floor(off / 1e6); off -= os * 1e6;
  out += `${sign}${pad(oh)}:${pad(om)}`;
  if (os || off) out += `:${pad(os)}`;
  if (off) out += `.${pad(off, 6)}`;
  return out;
}

// ------------------------------------------------------------------ the verifier

class Bad extends Error {}

function get(obj, key, where) {
  if (!isMap(obj) || !obj.has(key)) throw new Bad(`${where}: falta el campo «${key}»`);
  return obj.get(key);
}

function int(obj, key, where) {
  const v = get(obj, key, where);
  if (!isInt(v) || v < 0n || v >= U64_END) {
    throw new Bad(`${where}: «${key}» debe ser un número entero entre 0 y 2^64-1`);
  }
  return v;
}

function seedOf(obj, where) {
  const v = get(obj, 'seed', where);
  let seed = new Uint8Array(0);
  // bytes.fromhex: pairs of hex digits, ASCII whitespace allowed between pairs.
  if (typeof v === 'string' && /^[ \t\n\r\v\f]*(?:[0-9a-fA-F]{2}[ \t\n\r\v\f]*)*$/.test(v)) {
    seed = fromHex(v.replace(/[ \t\n\r\v\f]/g, ''));
  }
  if (seed.length !== SEED_BYTES) throw new Bad(`${where}: la semilla debe ser de ${SEED_BYTES} bytes en hexadecimal`);
  return seed;
}

function when(obj, key, where) {
  const stamp = get(obj, key, where);
  const version = int(stamp, 'version', `${where} (${key})`);
  const at = get(stamp, 'at', `${where} (${key})`);
  let moment = null;
  if (typeof at === 'string') {
    moment = fromIsoformat(at);
  }
  if (moment === null || moment.offset === null) {
    throw new Bad(`${where} (${key}): «at» debe ser una fecha ISO 8601 con zona horaria`);
  }
  return [version, moment];
}

function parse(record) {
  if (!isMap(record)) throw new Bad('El registro debe ser un objeto JSON');
  if (record.get('format') !== RECORD_FORMAT) throw new Bad(`Formato desconocido: se esperaba «${RECORD_FORMAT}»`);
  const table = get(record, 'table', 'Registro');
  if (typeof table !== 'string' || !table) {
    throw new Bad('Registro: «table» debe ser el identificador de la mesa (texto)');
  }
  const server = get(record, 'server', 'Registro');
  const seatsIn = get(record, 'seats', 'Registro');
  if (!Array.isArray(seatsIn)) throw new Bad('Registro: «seats» debe ser una lista con los cuatro asientos');
  const seats = new Map();
  seatsIn.forEach((entry, n) => {
    const seat = int(entry, 'seat', `Entrada ${n + 1} de «seats»`);
    const where = `Asiento ${seat}`;
    if (seat >= BigInt(SEATS)) throw new Bad(`${where}: no existe (los asientos van de 0 a 3)`);
    const s = Number(seat);
    if (seats.has(s)) throw new Bad(`${where}: aparece dos veces`);
    const by = get(entry, 'by', where);
    if (by !== 'player' && by !== 'server') throw new Bad(`${where}: «by» debe ser «player» o «server»`);
    seats.set(s, {
      by,
      commitment: get(entry, 'commitment', where),
      seed: seedOf(entry, where),
      published: when(entry, 'published', where),
    });
  });
  const missing = [0, 1, 2, 3].filter((s) => !seats.has(s));
  if (missing.length) throw new Bad(`Falta el asiento ${missing.join(', ')}`);
  const deck = get(record, 'deck', 'Registro');
  if (!Array.isArray(deck) || deck.length !== DECK.length) {
    throw new Bad('Registro: «deck» debe ser la lista de las 52 cartas repartidas');
  }
  const game = int(record, 'game', 'Registro');
  const hand = int(record, 'hand', 'Registro');
  const srv = {
    commitment: get(server, 'commitment', 'Servidor'),
    seed: seedOf(server, 'Servidor'),
    published: when(server, 'published', 'Servidor'),
  };
  return {
    table, game, hand, server: srv,
    seats: [0, 1, 2, 3].map((s) => seats.get(s)),
    deal: when(record, 'deal', 'Registro'),
    closed: when(record, 'closed', 'Registro'),
    revealed: when(record, 'revealed', 'Registro'),
    deck,
  };
}

const atText = (w) => `versión ${w[0]}, ${isoMillis(w[1])}`;
/** `first` came strictly earlier in the log (its clock not later either). */
const before = (first, then) => first[0] < then[0] && first[1].utc <= then[1].utc;
const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Verify a deal record: every failed check in Spanish (as rules.deal.verify), and what each seat
 * contributed. `record` is text (read exactly as Python would), or a parsed value.
 * @returns {Promise<{ok: boolean, failures: string[], table: ?string, game: ?number,
 *   hand: ?number, server: ?object, seats: ?object[], deck: ?string[]}>}
 */
export async function verifyRecord(record) {
  let r;
  try {
    r = parse(typeof record === 'string' ? parseJSON(record) : fromJS(record));
  } catch (err) {
    if (err instanceof Bad) return { ok: false, failures: [err.message], seats: null, deck: null };
    if (err instanceof JSONError) return { ok: false, failures: ['El registro no es un JSON válido'], seats: null, deck: null };
    throw err;
  }
  const { table, game, hand, server, seats, deal } = r;
  const failed = [];
  const serverOk = server.commitment === await commit(server.seed, table, game, hand);
  if (!serverOk) failed.push('Servidor: el compromiso publicado no corresponde a su semilla');
  if (!before(server.published, deal)) {
    failed.push(`Servidor: el compromiso se publicó (${atText(server.published)}) después del reparto (${atText(deal)})`);
  }
  const detail = [];
  for (let s = 0; s < SEATS; s += 1) {
    const seat = seats[s];
    const matches = seat.commitment === await commit(seat.seed, table, game, hand, s);
    if (!matches) failed.push(`Asiento ${s}: el compromiso publicado no corresponde a su semilla`);
    let derived = null;
    if (seat.by === 'server') {
      derived = sameBytes(seat.seed, await serverSeatSeed(server.seed, table, game, hand, s));
      if (!derived) {
        failed.push(`Asiento ${s}: el servidor barajó por este asiento, pero la semilla no es la que se deriva de la semilla del servidor`);
      }
    }
    const afterServer = before(server.published, seat.published);
    if (!afterServer) {
      failed.push(`Asiento ${s}: el compromiso se publicó (${atText(seat.published)}) antes que el del servidor (${atText(server.published)})`);
    }
    const beforeDeal = before(seat.published, deal);
    if (!beforeDeal) {
      failed.push(`Asiento ${s}: el compromiso se publicó (${atText(seat.published)}) después del reparto (${atText(deal)})`);
    }
    detail.push({
      seat: s, by: seat.by, commitment: typeof seat.commitment === 'string' ? seat.commitment : pyRepr(seat.commitment),
      seed: toHex(seat.seed), commitmentMatches: matches, derivedForServer: derived,
      inOrder: afterServer && beforeDeal,
      ok: matches && derived !== false && afterServer && beforeDeal,
    });
  }
  if (!before(deal, r.closed)) failed.push(`La cuenta se cerró (${atText(r.closed)}) antes del reparto (${atText(deal)})`);
  if (!(r.closed[0] <= r.revealed[0] && r.closed[1].utc <= r.revealed[1].utc)) {
    failed.push(`Las semillas se revelaron (${atText(r.revealed)}) antes de cerrarse la cuenta (${atText(r.closed)})`);
  }
  const expected = await deriveDeck(server.seed, seats.map((x) => x.seed), table, game, hand);
  let deckOk = true;
  for (let i = 0; i < expected.length; i += 1) {
    const played = r.deck[i];
    if (played !== expected[i]) {
      const shown = typeof played === 'string' && DECK.includes(played) ? cardLabel(played) : pyRepr(played);
      failed.push(`Mazo: la carta ${i + 1} (para el asiento ${i % SEATS}) fue ${shown}, pero las semillas dan ${cardLabel(expected[i])}`);
      deckOk = false;
      break;
    }
  }
  return {
    ok: failed.length === 0,
    failures: failed,
    table,
    game: Number(game),
    hand: Number(hand),
    server: {
      commitment: typeof server.commitment === 'string' ? server.commitment : pyRepr(server.commitment),
      seed: toHex(server.seed), commitmentMatches: serverOk, inOrder: before(server.published, deal),
    },
    seats: detail,
    deck: expected,
    deckMatches: deckOk,
  };
}
