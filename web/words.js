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
// but still after what came before it. An utterance the daemon says to several listeners (the
// blind player's move, to him and to the opponent) is read once: each `say` carries the
// utterance's identity (`id`), which the same words to another listener in the same step share
// and any other utterance, even in the same words, does not.
const speech = { queue: [], shownAt: 0, readMs: 0, timer: null, heard: new Set() };
// Identities kept to recognise a repeat: the last few hundred utterances are plenty.
const HEARD_KEPT = 500;

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

// Whether a `say` is an utterance this page has read already (said to another listener too):
// by its identity, never by its words. A say without one (0: words of the correspondence desk)
// is always read.
function saidAgain(id) {
  if (!id) return false;
  if (speech.heard.has(id)) return true;
  speech.heard.add(id);
  if (speech.heard.size > HEARD_KEPT) speech.heard.delete(speech.heard.values().next().value);
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
// what is said to everyone), `moves` (the opponent's words and both sides' moves: the
// relayed side's moves are said to the blind player only), or `all`.
const HEARS = {
  opponent: ['opponent', 'all'],
  blind: ['blind', 'all'],
  moves: ['opponent', 'all'],
  all: ['opponent', 'blind', 'all', 'arbiter'],
};

function hears(mode, e) {
  if ((HEARS[mode] || HEARS.opponent).includes(e.listener)) return true;
  return mode === 'moves' && e.listener === 'blind' && e.about === 'move';
}

function defaultHearing(role) {
  if (role === 'arbiter') return 'all';
  if ((role === 'white' || role === 'black') && app.view && app.view.peg_side === role) return 'blind';
  if (role === 'observer') return 'moves';
  return 'opponent';
}

// ---------- the page's own labels ----------

// English, unless the table's language file has the page's labels (`[words.page]`,
// `/words.json`): then the page reads in the table's language.
const LABELS = {
  board: 'Board', clocks: 'Clocks', move_entry: 'Move entry', game: 'Game',
  physical_boards: 'Physical boards', scoresheets: 'Scoresheets', said: 'What was said',
  arbiter: 'Arbiter', export: 'Export', flip: 'Flip board', keys: 'Keyboard commands',
  send_move: 'Send move', tell_clock: 'Clock (tell the blind player)', offer_draw: 'Offer draw',
  claim_draw: 'Claim draw…', undo: 'Undo slip of the tongue (D.2.8)', resign: 'Resign…',
  log_out: 'Log out', tables: 'Tables', claim_question: 'Claim a draw?',
  claim_explain: 'A claim that is wrong gives the opponent time (FIDE 6.12).',
  claim_yes: 'Yes, claim the draw', keep_playing: 'No, keep playing',
  resign_question: 'Resign the game?', resign_yes: 'Yes, resign', to_move: '{color} to move',
  game_over: 'Game over', in_progress: 'Game in progress', running: 'running',
  connection_lost: 'Connection to the daemon lost; reconnecting.', reconnected: 'Reconnected.',
  promotion_pending: 'Promotion pending on {square}: choose the new piece.',
  undo_own: 'Undo my last move (Alt+U)', new_game: 'New game', result: 'Enter the result',
  tag: 'Set a header tag', read_out: 'Read out',
  hear_opponent: 'the opponent\'s words (and what is said to everyone)',
  hear_blind: 'the blind player\'s words (and what is said to everyone)',
  hear_moves: 'both sides\' moves and the opponent\'s words (and what is said to everyone)',
  hear_all: 'everything said at the table', draw_offered: '{color} offers a draw.',
  clocks_stopped: 'Clocks stopped.',
};

// A label in the table's language (filled: `{color}`, `{square}`).
function L(key, args = {}) {
  const page = app.words && app.words.page;
  const own = page && page[key];
  let text = own || LABELS[key] || key;
  for (const [k, v] of Object.entries(args)) text = text.replace(`{${k}}`, v);
  return text;
}

// The language the page's labels are in: the table's when its file has them.
function labelLang() {
  return app.words && app.words.page && Object.keys(app.words.page).length ? tableLang() : 'en';
}

function tableLang() {
  return (app.view && app.view.lang) || (app.words && app.words.code) || 'en';
}

// ---------- numbers and times in words ----------

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

// "1 Stunde 31 Minuten" in the table's words (`/words.json`'s `time`, the speech's own), never
// "1:31:41", which a voice reads as a time of day; English without them.
function durationWords(total) {
  const neg = total < 0;
  let s = Math.abs(Math.floor(total));
  const h = Math.floor(s / 3600); s -= h * 3600;
  const m = Math.floor(s / 60); s -= m * 60;
  const t = app.words && app.words.time;
  const unit = (n, one, many, enOne, enMany) => (t
    // The count as digits, whatever its placeholder ({n}, or {n_m} / {n_f} where the number
    // word takes the noun's gender).
    ? (n === 1 ? t[one] : t[many].replace(/\{n(?:_[mf])?\}/g, String(n)))
    : plural(n, enOne, enMany));
  const parts = [];
  if (h) parts.push(unit(h, 'hour_one', 'hours', 'hour', 'hours'));
  if (m) parts.push(unit(m, 'minute_one', 'minutes', 'minute', 'minutes'));
  if (s || !parts.length) parts.push(unit(s, 'second_one', 'seconds', 'second', 'seconds'));
  return (neg ? '− ' : '') + parts.join(' ');
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

