// annabella's table page, first script: the shared state, the announcement queue and numbers and
// times in words. The page's scripts load in order (words, chess, events, render, app) and share
// one global scope; app.js speaks the control protocol (docs/control-protocol.md) over /ws.
// Plain script, no build step, nothing loaded from elsewhere.
'use strict';

const $ = (id) => document.getElementById(id);
const FILES = 'abcdefgh';
const ROLE_KEYS = { k: 'king', q: 'queen', r: 'rook', b: 'bishop', n: 'knight', p: 'pawn' };
// Filled glyphs for both colours, told apart by an outline (white) or a solid body (black):
// shape and contrast, not colour alone, and the grid reads every square in words.
const GLYPHS = { k: '♚', q: '♛', r: '♜', b: '♝', n: '♞', p: '♟' };
const CODE_WORDS = {
  syntax: 'not understood', auth: 'not logged in', forbidden: 'not allowed',
  move: 'not a legal move', state: 'not possible now', rate: 'too many requests',
};

const app = {
  token: '',
  role: '',
  table: '',
  tables: [],
  words: null,
  fen: '',
  flipped: false,
  focus: 'e2',
  from: null,
  clock: null,
  // The last move: { uci, san_local, words, number, color }, or null.
  last: null,
  end: null,
  view: null,
  hearing: '',
  procedureOpen: false,
  // Stepping through the record with [ and ]: the half-move read last, or null.
  step: null,
  // The position the picture shows while stepping back: { fen, text }, or null (the game's).
  past: null,
  status: {},
  sheets: { a: null, b: null, twoSheets: false },
  guide: { peg: '', normal: '' },
  // The two-sheet procedure: the daemon's proposal and its reasons, until decided.
  resolution: null,
  explain: [],
};

// ---------- announcements ----------

// Everything the page announces goes through one queue into the two live regions, one phrase
// at a time: a phrase is left in its region long enough to be read (about 40 characters a
// second, a common screen-reader rate) before the next replaces it, so phrases arriving in one frame (a mate and the
// result) are all read, whole and in order. What must interrupt goes to the assertive region,
// but still after what came before it. A phrase the daemon says to several listeners in the
// same words (the blind player's move, to him and to the opponent) is read once.
const speech = { queue: [], shownAt: 0, readMs: 0, timer: null, recent: new Map() };
// The daemon says one utterance to its listeners at the same instant; a phrase again to a
// listener who already had it, or later than this, is said anew and read again.
const SAID_ONCE_MS = 1000;

function readingMs(text) {
  return Math.min(2000, 200 + 25 * text.length);
}

// `lang`: the phrase's language (the table's for the daemon's words, English for the page's
// own). `kind`: `said` for a daemon utterance (see `saidAgain`); `reply` for the answer to a key or command, which replaces an earlier answer not yet
// read (the user asked something new); `note` for the page's own notices.
function announce(text, urgent = false, lang = 'en', kind = 'note') {
  if (!text) return;
  if (kind === 'reply') speech.queue = speech.queue.filter((item) => item.kind !== 'reply');
  speech.queue.push({ text, urgent: Boolean(urgent), lang, kind });
  pumpSpeech();
}

// Whether a `say` is the same utterance as one just read, said to another listener (the blind
// player's move, to him and to the opponent in the same words): then it is not read twice.
function saidAgain(text, listener) {
  const now = performance.now();
  for (const [t, seen] of speech.recent) if (now - seen.at > SAID_ONCE_MS) speech.recent.delete(t);
  const seen = speech.recent.get(text);
  if (seen && !seen.listeners.has(listener)) {
    seen.listeners.add(listener);
    return true;
  }
  speech.recent.set(text, { at: now, listeners: new Set([listener]) });
  return false;
}

function pumpSpeech() {
  if (speech.timer || !speech.queue.length) return;
  const next = speech.queue[0];
  // A polite phrase may follow while the last is still read (screen readers queue polite
  // phrases); an assertive one would cut it off, so it waits until the last was read.
  const wait = next.urgent ? speech.readMs : Math.min(speech.readMs, 600);
  const left = speech.shownAt + wait - performance.now();
  if (left > 0) { speech.timer = setTimeout(() => { speech.timer = null; pumpSpeech(); }, left); return; }
  speech.queue.shift();
  const region = next.urgent ? $('live-assertive') : $('live-polite');
  // Emptying first makes a repeated phrase ("in Ordnung") be read again.
  $('live-polite').replaceChildren();
  $('live-assertive').replaceChildren();
  speech.timer = setTimeout(() => {
    const span = document.createElement('span');
    span.lang = next.lang;
    span.textContent = next.text;
    region.replaceChildren(span);
    speech.shownAt = performance.now();
    speech.readMs = readingMs(next.text);
    speech.timer = null;
    pumpSpeech();
  }, 40);
}

// Whose words this page reads out (the transcript shows everything): `opponent` (what the
// sighted side hears and what is said to everyone), `blind` (what the blind player hears and
// what is said to everyone), or `all`.
const HEARS = {
  opponent: ['opponent', 'all'],
  blind: ['blind', 'all'],
  all: ['opponent', 'blind', 'all', 'arbiter'],
};

function defaultHearing(role) {
  if (role === 'arbiter') return 'all';
  if ((role === 'white' || role === 'black') && app.view && app.view.peg_side === role) return 'blind';
  return 'opponent';
}

function tableLang() {
  return (app.view && app.view.lang) || (app.words && app.words.code) || 'en';
}

// ---------- numbers and times in words ----------

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

// "1 hour 30 minutes 58 seconds", never "1:30:58", which a voice reads as a time of day.
function durationWords(total) {
  const neg = total < 0;
  let s = Math.abs(Math.floor(total));
  const h = Math.floor(s / 3600); s -= h * 3600;
  const m = Math.floor(s / 60); s -= m * 60;
  const parts = [];
  if (h) parts.push(plural(h, 'hour', 'hours'));
  if (m) parts.push(plural(m, 'minute', 'minutes'));
  if (s || !parts.length) parts.push(plural(s, 'second', 'seconds'));
  return (neg ? 'minus ' : '') + parts.join(' ');
}

// A time control as the daemon writes it ("5400+30", "40/7200:1800+30") in words.
function timeControlWords(tc) {
  if (!tc) return 'unknown';
  return tc.split(':').map((period) => {
    const m = /^(?:(\d+)\/)?(\d+)(?:\+(\d+))?$/.exec(period);
    if (!m) return period;
    let w = (m[1] ? `${plural(Number(m[1]), 'move', 'moves')} in ` : '') + durationWords(Number(m[2]));
    if (m[3]) w += ` plus ${plural(Number(m[3]), 'second', 'seconds')} a move`;
    return w;
  }).join(', then ');
}

