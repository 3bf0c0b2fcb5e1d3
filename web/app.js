// annabella's table page: speaks the daemon's control protocol (docs/control-protocol.md) over
// the WebSocket at /ws, one request per message, one reply line each, `event …` lines between.
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

// ---------- the connection ----------

const MAX_LINE_BYTES = 512;

class Connection {
  constructor(onEvent, onClose) {
    this.pending = [];
    this.onEvent = onEvent;
    this.onClose = onClose;
    // The control server allows 10 requests a second in bursts of 20; the page keeps below.
    this.tokens = 18;
    this.backlog = [];
    this.timer = setInterval(() => this.refill(), 112);
  }

  open() {
    return new Promise((resolve, reject) => {
      const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws';
      this.ws = new WebSocket(url);
      let opened = false;
      this.ws.onopen = () => { opened = true; resolve(); };
      this.ws.onerror = () => reject(new Error('the page could not open its connection to the daemon'));
      this.ws.onmessage = (m) => this.receive(String(m.data));
      this.ws.onclose = () => {
        clearInterval(this.timer);
        for (const p of this.pending) p.resolve('error state the connection to the daemon is closed');
        for (const p of this.backlog) p.resolve('error state the connection to the daemon is closed');
        this.pending = [];
        this.backlog = [];
        if (opened) this.onClose(this);
      };
    });
  }

  receive(line) {
    // A table's event comes as an object with its fields by name; the connection's own
    // events (`event lagged N`, `event shutdown`) as lines.
    if (line.startsWith('{')) {
      let event = null;
      try { event = JSON.parse(line); } catch (e) { return; }
      this.onEvent(event);
      return;
    }
    if (line.startsWith('event ')) {
      const [kind, ...rest] = line.slice(6).split(' ');
      this.onEvent({ event: kind, detail: rest.join(' '), line });
      return;
    }
    const head = this.pending.shift();
    if (head) head.resolve(line);
  }

  refill() {
    this.tokens = Math.min(18, this.tokens + 1);
    this.flush();
  }

  flush() {
    while (this.tokens >= 1 && this.backlog.length) {
      const { line, resolve } = this.backlog.shift();
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        resolve('error state the connection to the daemon is closed');
        continue;
      }
      this.tokens -= 1;
      this.pending.push({ line, resolve });
      this.ws.send(line);
    }
  }

  request(line) {
    // The daemon takes lines of at most 512 bytes; a longer one is refused here, in words,
    // and never sent.
    const bytes = new TextEncoder().encode(line).length;
    if (bytes > MAX_LINE_BYTES) {
      return Promise.resolve(`error syntax the entry is ${bytes} bytes long; a request is at most ${MAX_LINE_BYTES} bytes`);
    }
    return new Promise((resolve) => {
      this.backlog.push({ line, resolve });
      this.flush();
    });
  }

  close() {
    if (this.ws) this.ws.close();
  }
}

let conn = null;

async function ask(line) {
  if (!conn) return 'error state not connected to the daemon';
  return conn.request(line);
}

function okText(reply) {
  return reply.startsWith('ok ') ? reply.slice(3) : reply === 'ok' ? '' : null;
}

// "error move illegal move …" in words: what kind of refusal, and the daemon's message.
function refusal(reply) {
  const m = /^error (\S+) ?(.*)$/.exec(reply);
  if (!m) return reply;
  return `Refused (${CODE_WORDS[m[1]] || m[1]}): ${m[2]}`;
}

// ---------- login and the tables ----------

function show(view) {
  for (const v of ['login-view', 'tables-view', 'table-view']) $(v).hidden = v !== view;
  $('nav').hidden = view === 'login-view';
}

function setConnection(text) {
  $('connection').textContent = text;
}

// Opens a connection and logs in: the role and table, or why not (`error` in words, and
// `auth` when the token itself was refused).
async function connect(token) {
  const c = new Connection(onEvent, onClosed);
  try {
    await c.open();
  } catch (e) {
    return { error: e.message + '. Is annabella serve running?' };
  }
  conn = c;
  const reply = await c.request('auth ' + token);
  const ok = okText(reply);
  if (ok === null) {
    // Closed on purpose: no "connection closed" to cut into the refusal.
    c.onClose = () => {};
    c.close();
    conn = null;
    return { error: 'Login failed. ' + refusal(reply), auth: reply.startsWith('error auth') };
  }
  const [role, table] = ok.split(' ');
  return { role, table };
}

async function login(token) {
  $('login-error').textContent = '';
  app.token = token.trim();
  if (!app.token) {
    $('login-error').textContent = 'Enter a token.';
    return;
  }
  if (/\s/.test(app.token)) {
    $('login-error').textContent = 'A token has no spaces or line breaks; check what was pasted.';
    return;
  }
  if (!app.words) {
    try {
      const r = await fetch('/words.json');
      app.words = await r.json();
    } catch (e) {
      $('login-error').textContent = 'The page could not load the chess words from the daemon: ' + e.message;
      return;
    }
  }
  stopReconnecting();
  if (conn) { const c = conn; conn = null; c.onClose = () => {}; c.close(); }
  const got = await connect(app.token);
  if (got.error) {
    $('login-error').textContent = got.error;
    $('token').focus();
    return;
  }
  app.role = got.role;
  app.hearing = sessionStorage.getItem('annabella-hearing') || '';
  sessionStorage.setItem('annabella-token', app.token);
  setConnection(`Connected as ${app.role}.`);
  fillLanguages();
  applyRole();
  const tables = okText(await ask('tables'));
  app.tables = tables ? tables.split(' ').filter(Boolean) : (got.table ? [got.table] : []);
  renderTables();
  if (app.tables.length === 1) {
    await openTable(app.tables[0]);
  } else {
    show('tables-view');
    $('tables-title').focus();
  }
}

// ---------- staying connected ----------

// After a daemon restart or a network drop the page logs in again by itself with the token of
// this tab's session, waiting longer after each failure, and puts the focus back.
const reconnecting = { timer: null, attempt: 0, focus: null, since: 0 };
const BACKOFF_MS = [250, 500, 750, 1000, 1500, 2000, 3000, 5000];

function onClosed(closed) {
  if (closed !== conn) return;
  conn = null;
  if (!app.token || !app.table) {
    setConnection('The connection to the daemon is closed. Log in again to reconnect.');
    announce('The connection to the daemon is closed.', true);
    show('login-view');
    $('token').focus();
    return;
  }
  const active = document.activeElement;
  reconnecting.focus = active && active !== document.body ? active : null;
  reconnecting.attempt = 0;
  reconnecting.since = performance.now();
  setConnection('The connection to the daemon was lost; reconnecting…');
  announce('Connection to the daemon lost; reconnecting.', false);
  scheduleReconnect();
}

function stopReconnecting() {
  clearTimeout(reconnecting.timer);
  reconnecting.timer = null;
}

function scheduleReconnect() {
  stopReconnecting();
  const delay = BACKOFF_MS[Math.min(reconnecting.attempt, BACKOFF_MS.length - 1)];
  reconnecting.attempt += 1;
  reconnecting.timer = setTimeout(reconnect, delay);
}

async function reconnect() {
  reconnecting.timer = null;
  const got = await connect(app.token);
  if (!app.token) {
    // Logged out meanwhile: this connection is not wanted.
    if (conn) { const c = conn; conn = null; c.onClose = () => {}; c.close(); }
    return;
  }
  if (got.error && got.auth) {
    // The token is no longer good (revoked): the login says why.
    app.table = '';
    show('login-view');
    $('login-error').textContent = got.error;
    setConnection('Not connected.');
    $('token').focus();
    return;
  }
  if (got.error) {
    setConnection(`The connection to the daemon was lost; reconnecting (attempt ${reconnecting.attempt + 1})…`);
    scheduleReconnect();
    return;
  }
  app.role = got.role;
  const chosen = await ask('table ' + app.table);
  if (okText(chosen) === null) { setConnection('Reconnected, but ' + refusal(chosen)); return; }
  await ask('lang ' + $('lang').value);
  await ask('events');
  await refreshAll();
  const took = Math.round(performance.now() - reconnecting.since);
  document.body.dataset.reconnectedMs = String(took);
  setConnection(`Connected as ${app.role}. Reconnected after the connection was lost.`);
  announce('Reconnected.', false);
  const back = reconnecting.focus;
  reconnecting.focus = null;
  const lost = !document.activeElement || document.activeElement === document.body;
  if (back && lost && back.isConnected && !back.closest('[hidden]')) back.focus();
}

function renderTables() {
  const list = $('tables-list');
  list.replaceChildren();
  if (!app.tables.length) {
    const li = document.createElement('li');
    li.textContent = 'This token may see no table.';
    list.append(li);
  }
  for (const name of app.tables) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = 'Open ' + name;
    b.addEventListener('click', () => openTable(name));
    li.append(b);
    list.append(li);
  }
}

function fillLanguages() {
  const select = $('lang');
  select.replaceChildren();
  for (const code of app.words.languages) {
    const o = document.createElement('option');
    o.value = code;
    o.textContent = code;
    select.append(o);
  }
  select.value = app.words.code;
}

// Only the controls a role may use are shown: an observer reads (and uses the command line),
// players and the assistant play, the arbiter decides.
function applyRole() {
  const role = app.role;
  const reads = role === 'observer';
  const arbiter = role === 'arbiter';
  document.body.dataset.role = role;
  $('game-actions').hidden = reads;
  $('send-move').hidden = reads;
  $('move-label').textContent = reads
    ? 'Command (c clocks, l last move, h all commands)'
    : 'Move, in any notation (SAN, 5254, e2e4, spoken words), or a command (h lists them)';
  $('lang-row').hidden = false;
  $('record-form').hidden = reads || !app.sheets.twoSheets;
  $('arbiter-tools').hidden = !arbiter;
  $('mm-decide').hidden = !arbiter;
  $('mm-undo-row').hidden = reads;
  $('lag-confirm').hidden = reads;
  $('lag-dispute').hidden = reads;
}

async function openTable(name) {
  delete document.body.dataset.ready;
  const chosen = await ask('table ' + name);
  if (okText(chosen) === null) {
    show('tables-view');
    announce(refusal(chosen), true);
    return;
  }
  app.table = name;
  $('where').textContent = '— ' + name;
  $('table-title').textContent = 'Table ' + name + ' (you are ' + app.role + ')';
  document.title = 'annabella — ' + name;
  show('table-view');
  // Moves typed here are read in the table's language unless the user picks another.
  await ask('lang ' + $('lang').value);
  await ask('events');
  // Two scoresheets once the daemon keeps both (sheet a / sheet b); one record until then.
  app.sheets.twoSheets = okText(await ask('sheet a')) !== null;
  $('sheet-a-title').textContent = app.sheets.twoSheets ? 'Sheet A (blind player)' : 'Game record';
  $('sheet-b-title').textContent = app.sheets.twoSheets ? 'Sheet B (sighted player)' : 'Second scoresheet';
  applyRole();
  await refreshAll();
  labelsInTableLanguage();
  if (!app.hearing) app.hearing = defaultHearing(app.role);
  $('hear').value = app.hearing;
  renderGrid();
  $('table-title').setAttribute('tabindex', '-1');
  $('table-title').focus();
  // For scripts and tests: the table is set up and has the focus where a user starts.
  document.body.dataset.ready = name;
}

// ---------- what the daemon says ----------

// A burst of events (a move brings four or five) asks for each view once: a refresh already
// under way is followed by at most one more.
function coalesce(fn) {
  let running = null;
  let again = false;
  const run = async () => {
    if (running) { again = true; return running; }
    running = (async () => {
      do { again = false; await fn(); } while (again);
    })();
    try { await running; } finally { running = null; }
  };
  return run;
}

async function refreshAll() {
  await Promise.all([refreshState(), refreshClock(), refreshSheets()]);
}

// The table's whole state in one reply (`view`): the position, the boards, the procedure, the
// result with its reason, the last move in the table's words. Asked at open, reconnect and
// after every event that changes any of it, so the page never shows derived state gone
// stale. Against a daemon without `view` the page falls back to `board` and `status`.
app.hasView = true;
async function refreshState() {
  if (app.hasView) {
    await refreshView();
    if (app.hasView) return;
  }
  await Promise.all([refreshBoard(), refreshStatus()]);
}

const refreshView = coalesce(async () => {
  const r = await ask('view');
  const ok = okText(r);
  if (ok === null) {
    if (r.startsWith('error syntax')) app.hasView = false;
    return;
  }
  let v;
  try { v = JSON.parse(ok); } catch (e) { return; }
  applyView(v);
});

function applyView(v) {
  app.view = v;
  const boardOf = (b) => (b ? { link: b.connected ? 'connected' : 'disconnected', sync: b.sync } : { virtual: true });
  app.status = {
    table: v.table, ply: String(v.ply), turn: v.turn, result: v.result,
    'draw-offer': v.draw_offer || 'none', promotion: v.promotion || 'none',
    peg: boardOf(v.peg), normal: boardOf(v.normal),
  };
  app.guide.peg = (v.peg && v.peg.guide) || '';
  app.guide.normal = (v.normal && v.normal.guide) || '';
  app.last = v.last_move ? { ...v.last_move } : null;
  app.end = v.end || null;
  const p = v.procedure;
  if (p) {
    app.explain = p.explain || [];
    if (p.proposal_plies === null || p.proposal_plies === undefined) app.resolution = null;
    else if (!app.resolution || app.resolution.plies !== String(p.proposal_plies)) {
      app.resolution = { plies: String(p.proposal_plies) };
      $('mm-override-plies').value = app.resolution.plies;
    }
    if (p.lagging) showLagging(p.lagging, null); else hideKeepingFocus('lagging', 'sheets-title');
  } else {
    app.resolution = null;
    app.explain = [];
    hideKeepingFocus('lagging', 'sheets-title');
  }
  app.procedureOpen = Boolean(p);
  if (v.fen !== app.fen) app.fen = v.fen;
  renderBoard();
  renderStatus();
  renderResolution();
  if (v.promotion) { if ($('promotion').hidden) showPromotion(v.promotion); }
  else hideKeepingFocus('promotion', 'move-text');
  if (!$('mismatch').hidden) refreshBoards();
}

const refreshBoard = coalesce(async () => {
  const fen = okText(await ask('board'));
  if (fen) {
    app.fen = fen;
    renderBoard();
  }
});

const refreshStatus = coalesce(async () => {
  const s = okText(await ask('status'));
  if (s === null) return;
  const w = s.split(' ');
  const st = {};
  for (let i = 0; i < w.length; i++) {
    const k = w[i];
    if (['table', 'ply', 'turn', 'result', 'draw-offer', 'promotion'].includes(k)) { st[k] = w[i + 1]; i++; }
    else if (k === 'peg' || k === 'normal') {
      if (w[i + 1] === 'virtual') { st[k] = { virtual: true }; i++; }
      else { st[k] = { link: w[i + 1], sync: w[i + 2] }; i += 2; }
    }
  }
  app.status = st;
  renderStatus();
  // A page opened while a pawn waits on the last rank shows the choice too.
  if (st.promotion && st.promotion !== 'none') {
    if ($('promotion').hidden) showPromotion(st.promotion);
  } else if (st.promotion === 'none') {
    hideKeepingFocus('promotion', 'move-text');
  }
  if (!$('mismatch').hidden) refreshBoards();
});

// What each physical board shows (`boards`): the peg board's holes with the pieces the table
// believes in them, the e-board's pieces; drawn beside each other with the squares that differ
// from the game marked by a cross and named in words.
const refreshBoards = coalesce(async () => {
  const r = okText(await ask('boards'));
  if (r === null) return;
  const m = /^peg (\S+) S([0-9A-F]{16}) (\S+) normal (virtual|(\S+) (\S+))$/.exec(r);
  if (!m) return;
  const game = parseFen(app.fen);
  const boxes = [];
  const summary = [];
  const peg = { name: 'Peg board', link: m[1], occupied: occupiedSquares(m[2]), pieces: parseFen(m[3]) };
  boxes.push(physicalBoard(peg, game, summary));
  if (m[4] !== 'virtual') {
    const pieces = parseFen(m[6]);
    const occupied = new Set(Object.keys(pieces));
    boxes.push(physicalBoard({ name: 'Opponent\'s board', link: m[5], occupied, pieces }, game, summary));
  }
  $('mm-boards').replaceChildren(...boxes);
  $('mm-boards-summary').textContent = summary.join(' ');
});

function occupiedSquares(hex) {
  const bits = BigInt('0x' + hex);
  const set = new Set();
  for (let n = 0; n < 64; n++) {
    if ((bits >> BigInt(n)) & 1n) set.add(FILES[n % 8] + (Math.floor(n / 8) + 1));
  }
  return set;
}

function physicalBoard(b, game, summary) {
  const fig = document.createElement('figure');
  fig.className = 'physical-board';
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 180 180');
  svg.setAttribute('width', '180');
  svg.setAttribute('height', '180');
  svg.setAttribute('aria-hidden', 'true');
  const { ranks, files } = order();
  const differ = [];
  ranks.forEach((rank, row) => {
    files.forEach((file, col) => {
      const sq = file + rank;
      const x = 10 + col * 20, y = 10 + row * 20;
      const dark = (FILES.indexOf(file) + rank) % 2 === 1;
      svg.append(el('rect', { x, y, width: 20, height: 20, fill: dark ? '#8a6f4e' : '#efe6d2' }));
      const has = b.occupied.has(sq);
      const want = Boolean(game[sq]);
      if (has) {
        const p = b.pieces[sq];
        if (p) {
          const white = p === p.toUpperCase();
          svg.append(el('text', {
            x: x + 10, y: y + 16, 'text-anchor': 'middle', 'font-size': 16,
            fill: white ? '#fff' : '#000', stroke: '#000', 'stroke-width': white ? 1 : 0.4, 'paint-order': 'stroke',
          }, GLYPHS[p.toLowerCase()]));
        } else {
          // A peg whose piece nobody knows: a hole filled, drawn as a ring.
          svg.append(el('circle', { cx: x + 10, cy: y + 10, r: 6, fill: '#000' }));
        }
      }
      const wrongPiece = has && want && b.pieces[sq] && b.pieces[sq] !== game[sq];
      if (has !== want || wrongPiece) {
        differ.push(sq);
        // Marked by a cross and a frame, not by colour alone; black edged with white, so the
        // marker stands out at least 3:1 on light and dark squares alike.
        const cross = `M${x + 3} ${y + 3} L${x + 17} ${y + 17} M${x + 17} ${y + 3} L${x + 3} ${y + 17}`;
        svg.append(el('rect', { x: x + 1.5, y: y + 1.5, width: 17, height: 17, fill: 'none', stroke: '#000', 'stroke-width': 3 }));
        svg.append(el('rect', { x: x + 3, y: y + 3, width: 14, height: 14, fill: 'none', stroke: '#fff', 'stroke-width': 1 }));
        svg.append(el('path', { d: cross, stroke: '#fff', 'stroke-width': 4.5 }));
        svg.append(el('path', { d: cross, stroke: '#000', 'stroke-width': 2.5 }));
      }
    });
  });
  const cap = document.createElement('figcaption');
  const words = differ.map((sq) => {
    const has = b.occupied.has(sq);
    const p = b.pieces[sq];
    if (!has) return `${sq} is empty`;
    if (p) return `${sq} has ${pieceWords(p)}`;
    return `${sq} has a peg`;
  });
  const text = differ.length
    ? `${b.name} (${b.link}): ${differ.length} ${differ.length === 1 ? 'square differs' : 'squares differ'} from the game: ${words.join(', ')}.`
    : `${b.name} (${b.link}): shows the game's position.`;
  cap.textContent = text;
  summary.push(text);
  fig.append(svg, cap);
  return fig;
}

const refreshClock = coalesce(async () => {
  // Quiet: only the Clock button asks the daemon to tell the blind player.
  const c = okText(await ask('clock quiet'));
  if (c === null) return;
  const m = /white (\S+) black (\S+) moves (\d+) running (\S+)/.exec(c);
  if (!m) return;
  app.clock = { white: seconds(m[1]), black: seconds(m[2]), moves: +m[3], running: m[4], at: performance.now() };
  renderClock();
});

function seconds(hms) {
  const neg = hms.startsWith('-');
  const parts = hms.replace('-', '').split(':').map(Number);
  let s = 0;
  for (const p of parts) s = s * 60 + (p || 0);
  return neg ? -s : s;
}

function hms(total) {
  const neg = total < 0;
  let s = Math.abs(Math.floor(total));
  const h = Math.floor(s / 3600); s -= h * 3600;
  const m = Math.floor(s / 60); s -= m * 60;
  return (neg ? '−' : '') + h + ':' + String(m).padStart(2, '0') + ':' + String(s).padStart(2, '0');
}

const refreshSheets = coalesce(async () => {
  if (app.sheets.twoSheets) {
    const [a, b] = await Promise.all([ask('sheet a'), ask('sheet b')]);
    app.sheets.a = okText(a);
    app.sheets.b = okText(b);
  } else {
    app.sheets.a = okText(await ask('sheet'));
    app.sheets.b = null;
  }
  // Against a daemon without `view`, a page opened in the middle of a game names the last
  // move from the record.
  const moves = sheetMoves(app.sheets.a);
  if (!app.hasView && !app.last && moves.length) {
    app.last = { uci: '', san_local: moves[moves.length - 1], words: '', number: Math.ceil(moves.length / 2), color: moves.length % 2 ? 'white' : 'black' };
    renderBoard();
  }
  renderSheets();
});

// The events that change what `view` reports; a burst of them asks once (coalesced).
const STATE_EVENTS = new Set(['move', 'undo', 'begin', 'restored', 'end', 'takeback', 'resolution',
  'board', 'in-sync', 'unverifiable', 'guide', 'peg', 'normal', 'link', 'draw-offer', 'wrong-claim',
  'recorded', 'lagged', 'penalty', 'explain']);

function onEvent(e) {
  if (STATE_EVENTS.has(e.event)) refreshState();
  switch (e.event) {
    case 'say': {
      const lang = e.lang || tableLang();
      addTranscript(e.listener, e.text, lang);
      // Only the words this viewer chose to hear, each once, with the utterance's own
      // urgency (the same the speech interrupts for).
      if ((HEARS[app.hearing] || HEARS.opponent).includes(e.listener) && !saidAgain(e.text, e.listener)) {
        announce(e.text, e.urgent, lang, 'said');
      }
      break;
    }
    case 'move':
      app.last = {
        uci: e.uci, san_local: e.san_local || e.san, words: e.words || '', number: e.number, color: e.color,
      };
      app.step = null;
      hideKeepingFocus('promotion', 'move-text');
      if (!app.hasView) { refreshBoard(); refreshStatus(); }
      renderBoard();
      refreshClock(); refreshSheets();
      break;
    case 'resolution':
      onResolution(e);
      break;
    case 'explain':
      app.explain.push(e.text);
      renderResolution();
      break;
    case 'takeback': {
      app.resolution = null;
      const taken = e.retracted.length ? e.retracted.map(uciWords).join('; ') : 'none';
      $('mm-result').textContent = `Takeback carried out: back to ${plural(e.plies, 'half-move', 'half-moves')}; taken back: ${taken}. Clocks: White ${durationWords(seconds(e.white))}, Black ${durationWords(seconds(e.black))}.`;
      $('mm-clocks').textContent = `The clocks were put back: White ${durationWords(seconds(e.white))}, Black ${durationWords(seconds(e.black))}.`;
      announce($('mm-result').textContent);
      app.last = null;
      refreshAll();
      break;
    }
    case 'recorded':
      $('sheet-result').textContent = 'The resolution was written to the table\'s record.';
      break;
    case 'undo': case 'begin': case 'restored': case 'lagged':
      refreshClock(); refreshSheets();
      if (!app.hasView) refreshAll();
      break;
    case 'end':
      refreshClock(); refreshSheets();
      if (!app.hasView) refreshAll();
      $('action-result').textContent = `Game over: ${resultWords(e.result)}${e.description ? ' — ' + e.description : ''}.`;
      break;
    case 'draw-offer':
      if (!app.hasView) refreshStatus();
      refreshClock();
      $('action-result').textContent = `${capital(e.color)} offers a draw.`;
      break;
    case 'wrong-claim':
      if (!app.hasView) refreshStatus();
      refreshClock();
      $('action-result').textContent = `Wrong draw claim by ${e.color}: ${e.why}`;
      break;
    case 'clock-adjusted': case 'clock': case 'penalty': case 'resumed':
      refreshClock();
      $('arbiter-result').textContent = arbiterEvent(e);
      break;
    case 'board': case 'in-sync': case 'unverifiable': case 'link':
      if (e.event === 'in-sync') app.guide[e.board] = '';
      if (!app.hasView) refreshStatus();
      break;
    case 'guide':
      app.guide[e.board] = e.corrections.join('; ');
      if (!app.hasView) refreshStatus();
      refreshBoards();
      break;
    case 'peg': case 'normal': {
      if (e.what === 'promotion-pending') showPromotion(e.detail.split(' ')[0].replace(/:$/, ''));
      if (e.what === 'mismatch' || e.what === 'illegal') app.guide[e.board] = e.detail;
      if (e.what === 'in-sync') app.guide[e.board] = '';
      // A replication ends "owes the last move": the status is asked again for it too.
      if (!app.hasView) refreshStatus();
      break;
    }
    case 'result-offered':
      $('arbiter-result').textContent =
        `Result shown on the ${e.board} board (DGT's kings): ${resultWords(e.result)}. The arbiter confirms it with: result ${e.result}`;
      break;
    case 'journal-error':
      $('action-result').textContent = `The table could not record the last action (${e.message}); nothing changed.`;
      break;
    case 'shutdown':
      setConnection('The daemon is stopping; the page will reconnect when it is back.');
      break;
    default:
      break;
  }
}

function capital(w) {
  return w ? w[0].toUpperCase() + w.slice(1) : w;
}

function resultWords(r) {
  return { '1-0': 'White wins', '0-1': 'Black wins', '1/2-1/2': 'draw', '*': 'game in progress' }[r] || r;
}

// A move given as UCI ("e7e5") in the table's words: "from Eva sieben to Eva fünf".
function uciWords(uci) {
  const m = /^([a-h][1-8])([a-h][1-8])([qrbn])?$/.exec(uci || '');
  if (!m || !app.words) return uci;
  const promo = m[3] ? `, becoming ${app.words.pieces[ROLE_KEYS[m[3]]]}` : '';
  return `from ${squareWords(m[1])} to ${squareWords(m[2])}${promo}`;
}

// A reply of the daemon in words for the page's result lines ("withdrawn e7e5" is no sentence).
function replyWords(ok) {
  let m = /^withdrawn (\S+)$/.exec(ok);
  if (m) return `Move withdrawn (${uciWords(m[1])}); the clocks are back to their readings before it.`;
  m = /^back to (\d+) half-moves; white (\S+) black (\S+)$/.exec(ok);
  if (m) return `Taken back to ${plural(Number(m[1]), 'half-move', 'half-moves')}; clocks White ${durationWords(seconds(m[2]))}, Black ${durationWords(seconds(m[3]))}.`;
  m = /^(white|black) (-?\d+:\d\d:\d\d(?:\.\d+)?)$/.exec(ok);
  if (m) return `${capital(m[1])}'s clock: ${durationWords(seconds(m[2]))}.`;
  m = /^white (\S+) black (\S+) moves (\d+) running (\S+)$/.exec(ok);
  if (m) return `The clocks were told to the blind player: White ${durationWords(seconds(m[1]))}, Black ${durationWords(seconds(m[2]))}.`;
  if (/^result (\S+)$/.test(ok)) return `Result: ${resultWords(ok.split(' ')[1])}.`;
  return ok ? capital(ok) + (/[.!?]$/.test(ok) ? '' : '.') : 'Done.';
}

function arbiterEvent(e) {
  if (e.event === 'clock-adjusted') {
    const secs = e.delta_ms / 1000;
    return `Clock adjusted: ${e.color} ${secs >= 0 ? '+' : ''}${secs} s, ${durationWords(seconds(e.remaining))} left.`;
  }
  if (e.event === 'clock') return e.running ? 'Clocks running again.' : 'Clocks paused by the arbiter.';
  if (e.event === 'penalty') return `Penalty: ${e.color}'s ${e.count === 1 ? 'first' : e.count === 2 ? 'second' : 'number ' + e.count} illegal move.`;
  return `After the restart: downtime ${durationWords(e.downtime_ms / 1000)}, charged ${durationWords(e.charged_ms / 1000)}.`;
}

function showLagging(side, missing) {
  $('lagging').hidden = false;
  $('lagging').dataset.side = side;
  $('lagging-text').textContent = missing
    ? `Sheet ${side.toUpperCase()} lags; missing: ${missing.join(', ')}.`
    : `Sheet ${side.toUpperCase()} lags behind the other sheet.`;
}

function onResolution(e) {
  if (e.verdict === 'proposed') {
    const list = (moves) => (moves.length ? moves.join(', ') : 'nothing');
    app.resolution = {
      plies: String(e.plies), a: list(e.retract_a), b: list(e.retract_b),
      white: e.used_white, black: e.used_black,
    };
    app.explain = [];
    $('mm-result').textContent = '';
    $('mm-override-plies').value = app.resolution.plies;
    refreshSheets();
  } else if (e.verdict === 'lagging') {
    showLagging(e.side, e.missing);
  } else if (e.verdict === 'agree') {
    $('sheet-result').textContent = 'The sheets agree.';
    hideKeepingFocus('lagging', 'sheets-title');
  } else if (e.verdict === 'rejected') {
    app.resolution = null;
    $('mm-result').textContent = 'The arbiter rejected the proposed takeback; the game stands.';
  }
  renderResolution();
}

function renderResolution() {
  const r = app.resolution;
  const list = $('mm-explain');
  list.replaceChildren();
  for (const line of app.explain.slice(-12)) {
    const li = document.createElement('li');
    li.textContent = line;
    list.append(li);
  }
  if (!r) { renderStatus(); return; }
  if ($('mismatch').hidden) $('mm-result').textContent = '';
  $('mismatch').hidden = false;
  $('mm-state').textContent = 'Open: the arbiter decides on the proposed takeback.';
  $('mm-what').textContent = 'the two scoresheets differ.';
  const detail = r.a !== undefined
    ? `; taken back from sheet A: ${r.a}, from sheet B: ${r.b}. Time used then: White ${durationWords(seconds(r.white))}, Black ${durationWords(seconds(r.black))}.`
    : '.';
  $('mm-proposal').textContent = `take the game back to after ${r.plies} half-moves (the last move both sheets agree on)${detail}`;
  $('mm-sheets').textContent = $('sheet-diff').textContent || 'see below.';
  if (!app.guide.peg && !app.guide.normal) $('mm-corrections').textContent = 'nothing; the boards agree with the game.';
}

// Hides a part of the page; if the focus was in it, the focus goes on to `next` instead of
// falling back to the page's top.
function hideKeepingFocus(id, next) {
  const part = $(id);
  if (part.hidden) return;
  const had = part.contains(document.activeElement);
  part.hidden = true;
  if (had) $(next).focus();
}

// ---------- rendering ----------

function parseFen(fen) {
  const squares = {};
  const rows = (fen.split(' ')[0] || '').split('/');
  for (let r = 0; r < 8 && r < rows.length; r++) {
    let f = 0;
    for (const ch of rows[r]) {
      if (/\d/.test(ch)) f += Number(ch);
      else { if (f < 8) squares[FILES[f] + (8 - r)] = ch; f += 1; }
    }
  }
  return squares;
}

function pieceWords(ch) {
  const role = ROLE_KEYS[ch.toLowerCase()];
  const white = ch === ch.toUpperCase();
  return (white ? app.words.white_pieces : app.words.black_pieces)[role];
}

function squareWords(sq) {
  return app.words.files[FILES.indexOf(sq[0])] + ' ' + app.words.ranks[Number(sq[1]) - 1];
}

// A square in the table's language: its name and the piece on it; an empty square is read as
// its name alone (the grid is marked with the table's language, so no English word mixes in).
function cellLabel(sq, squares) {
  const p = squares[sq];
  return squareWords(sq) + (p ? ', ' + pieceWords(p) : '');
}

function order() {
  const ranks = app.flipped ? [1, 2, 3, 4, 5, 6, 7, 8] : [8, 7, 6, 5, 4, 3, 2, 1];
  const files = app.flipped ? [...FILES].reverse() : [...FILES];
  return { ranks, files };
}

const SVG = 'http://www.w3.org/2000/svg';
function el(name, attrs, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function renderBoard() {
  const squares = parseFen(app.fen);
  const svg = $('board-svg');
  svg.replaceChildren();
  const { ranks, files } = order();
  const last = /^([a-h][1-8])([a-h][1-8])/.exec((app.last && app.last.uci) || '');
  svg.append(el('rect', { x: 0, y: 0, width: 360, height: 360, fill: '#fff' }));
  ranks.forEach((rank, row) => {
    files.forEach((file, col) => {
      const sq = file + rank;
      const x = 20 + col * 40, y = 20 + row * 40;
      const dark = (FILES.indexOf(file) + rank) % 2 === 1;
      svg.append(el('rect', { x, y, width: 40, height: 40, fill: dark ? '#8a6f4e' : '#efe6d2' }));
      if (last && (last[1] === sq || last[2] === sq)) {
        // The last move is marked by a frame, not by a tint.
        svg.append(el('rect', { x: x + 2, y: y + 2, width: 36, height: 36, fill: 'none', stroke: '#000', 'stroke-width': 3, 'stroke-dasharray': '6 3' }));
      }
      const p = squares[sq];
      if (p) {
        const white = p === p.toUpperCase();
        svg.append(el('text', {
          x: x + 20, y: y + 31, 'text-anchor': 'middle', 'font-size': 32,
          'font-family': 'DejaVu Sans, Noto Sans Symbols2, Segoe UI Symbol, serif',
          fill: white ? '#fff' : '#000', stroke: '#000', 'stroke-width': white ? 1.6 : 0.6,
          'paint-order': 'stroke',
        }, GLYPHS[p.toLowerCase()]));
      }
    });
  });
  ranks.forEach((rank, row) => {
    svg.append(el('text', { x: 10, y: 45 + row * 40, 'text-anchor': 'middle', 'font-size': 13, fill: '#000' }, String(rank)));
  });
  files.forEach((file, col) => {
    svg.append(el('text', { x: 40 + col * 40, y: 352, 'text-anchor': 'middle', 'font-size': 13, fill: '#000' }, file));
  });
  svg.setAttribute('data-fen', app.fen);
  const caption = $('board-caption');
  caption.replaceChildren('Seen from ' + (app.flipped ? 'Black' : 'White') + '. ');
  if (app.last) caption.append('Last move: ', inLang(lastMoveText(), tableLang()), ' (framed).');
  else caption.append('No move yet.');
  updateGridLabels(squares);
}

// An element holding words of another language than the page's, marked as such (WCAG 3.1.2).
function inLang(text, lang) {
  const span = document.createElement('span');
  span.lang = lang;
  span.textContent = text;
  return span;
}

// The last move as the table says it: "2. Sf3, Springer Felix drei".
function lastMoveText() {
  const m = app.last;
  if (!m) return '';
  const num = m.number ? `${m.number}${m.color === 'black' ? '…' : '.'} ` : '';
  return `${num}${m.san_local || ''}${m.words ? ', ' + m.words : ''}`;
}

function renderGrid() {
  const grid = $('board-grid');
  grid.replaceChildren();
  // The squares are read in the table's language.
  grid.lang = tableLang();
  const { ranks, files } = order();
  for (const rank of ranks) {
    const row = document.createElement('div');
    row.setAttribute('role', 'row');
    for (const file of files) {
      const cell = document.createElement('div');
      cell.setAttribute('role', 'gridcell');
      cell.dataset.square = file + rank;
      cell.tabIndex = file + rank === app.focus ? 0 : -1;
      cell.setAttribute('aria-selected', app.from === file + rank ? 'true' : 'false');
      row.append(cell);
    }
    grid.append(row);
  }
  updateGridLabels(parseFen(app.fen));
}

function updateGridLabels(squares) {
  for (const cell of $('board-grid').querySelectorAll('[role="gridcell"]')) {
    cell.setAttribute('aria-label', cellLabel(cell.dataset.square, squares));
    cell.setAttribute('aria-selected', app.from === cell.dataset.square ? 'true' : 'false');
  }
}

function focusSquare(sq) {
  app.focus = sq;
  for (const cell of $('board-grid').querySelectorAll('[role="gridcell"]')) {
    const me = cell.dataset.square === sq;
    cell.tabIndex = me ? 0 : -1;
    if (me) cell.focus();
  }
}

function renderStatus() {
  const st = app.status;
  const line = $('status-line');
  const offer = st['draw-offer'] && st['draw-offer'] !== 'none' ? ` ${capital(st['draw-offer'])} offers a draw.` : '';
  if (app.end || (st.result && st.result !== '*')) {
    // After the end the status says why, not whose turn it would be.
    line.replaceChildren(`Game over: ${resultWords(app.end ? app.end.result : st.result)}`);
    if (app.end && app.end.words) line.append(' — ', inLang(app.end.words, tableLang()));
    line.append('.');
  } else {
    const turn = st.turn ? `${capital(st.turn)} to move` : 'Waiting for the table';
    const ply = Number(st.ply);
    const move = Number.isFinite(ply) ? `, move ${Math.floor(ply / 2) + 1}` : '';
    line.replaceChildren(`Game in progress. ${turn}${move}.${offer}`);
  }
  const list = $('boards-state');
  list.replaceChildren();
  let differs = null;
  for (const board of ['peg', 'normal']) {
    const b = st[board];
    if (!b) continue;
    const li = document.createElement('li');
    const name = board === 'peg' ? 'Peg board (blind player)' : 'Opponent\'s board';
    if (b.virtual) li.textContent = name + ': none; the opponent\'s moves are entered here or by the assistant.';
    else {
      const sync = { 'in-sync': 'in sync with the game', differs: 'DIFFERS from the game', 'owes-move': 'still owes the opponent\'s last move' }[b.sync] || b.sync;
      li.textContent = `${name}: ${b.link}, ${sync}.`;
      if (app.guide[board] && b.sync !== 'in-sync') li.append(' Needs: ', inLang(app.guide[board], tableLang()));
      if (b.sync === 'differs') differs = board;
    }
    list.append(li);
  }
  renderMismatch(differs);
}

function renderMismatch(board) {
  const panel = $('mismatch');
  if (app.resolution) {
    $('mm-state').textContent = 'Open: the arbiter decides on the proposed takeback.';
    return;
  }
  if (!board && !app.procedureOpen) {
    if (!panel.hidden && !$('mm-state').textContent.startsWith('Resolved')) {
      $('mm-state').textContent = 'Resolved: the boards agree with the game.';
      $('mm-corrections').textContent = 'nothing; the boards agree with the game.';
      $('mm-proposal').textContent = 'none needed now.';
      // The drawing is asked again, so it shows the boards as they are now.
      refreshBoards();
    }
    return;
  }
  $('mm-state').textContent = board ? 'Open: a board differs from the game.' : 'Open: the scoresheets are being compared.';
  // A new mismatch starts a new procedure; an outcome already shown stays until then.
  if (panel.hidden) $('mm-result').textContent = '';
  const opening = panel.hidden;
  panel.hidden = false;
  if (opening) refreshBoards();
  if (!board) return;
  const name = board === 'peg' ? 'the peg board' : 'the opponent\'s board';
  $('mm-what').textContent = `${name} differs from the game after ${plural(Number(app.status.ply), 'half-move', 'half-moves')}.`;
  const guide = app.guide[board];
  if (guide) {
    $('mm-corrections').replaceChildren(inLang(guide, tableLang()));
    $('mm-proposal').replaceChildren(`the game's record stands; correct ${name}: `, inLang(guide, tableLang()), '.');
  } else {
    // Without the board's guide yet, the drawing below names the squares that differ.
    $('mm-corrections').textContent = 'the squares marked in the drawing below.';
    $('mm-proposal').textContent = 'the game\'s record stands; correct the board as it guides.';
  }
}

// The page's labels in the table's language where its language file has the words (the
// colours); the others stay English, and each element says which.
function labelsInTableLanguage() {
  const lang = tableLang();
  for (const color of ['white', 'black']) {
    const dt = $('clock-' + color).querySelector('dt');
    dt.textContent = app.words[color];
    dt.lang = lang;
    for (const select of [$('adjust-color'), $('penalty-color')]) {
      const o = select.querySelector(`option[value="${color}"]`);
      o.textContent = app.words[color];
      o.lang = lang;
    }
  }
}

function renderClock() {
  const c = app.clock;
  if (!c) return;
  const gone = (performance.now() - c.at) / 1000;
  for (const color of ['white', 'black']) {
    const box = $('clock-' + color);
    const running = c.running === color;
    const left = running ? c[color] - gone : c[color];
    box.querySelector('.time').textContent = hms(left);
    // Read as a duration in words: "1:30:58" would be read as a time of day.
    const spoken = durationWords(left);
    const words = box.querySelector('.time-words');
    if (words.textContent !== spoken) words.textContent = spoken;
    box.querySelector('.running-mark').textContent = running ? '◀ running' : '';
    box.classList.toggle('running', running);
    box.classList.toggle('flag', left <= 0);
  }
  $('clock-moves').textContent = `${plural(c.moves, 'move', 'moves')} played. ` + (c.running === 'none' ? 'Clocks stopped.' : '');
}

function clockWords() {
  const c = app.clock;
  if (!c) return 'no clock reading yet';
  const gone = (performance.now() - c.at) / 1000;
  const left = (color) => durationWords(c.running === color ? c[color] - gone : c[color]);
  const running = c.running === 'none' ? 'clocks stopped' : `${c.running}'s clock running`;
  return `White ${left('white')}, Black ${left('black')}; ${plural(c.moves, 'move', 'moves')} played; ${running}.`;
}

function sheetMoves(text) {
  if (!text) return [];
  return text.split(/\s+/).filter((t) => t && !/^\d+\.+$/.test(t) && !/^(1-0|0-1|1\/2-1\/2|\*)$/.test(t));
}

function renderSheets() {
  const a = sheetMoves(app.sheets.a);
  const b = app.sheets.b === null ? null : sheetMoves(app.sheets.b);
  let first = -1;
  if (b) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) { first = i; break; }
  }
  $('sheet-a').replaceChildren(sheetTable(a, first, $('sheet-a-title').textContent));
  if (b) $('sheet-b').replaceChildren(sheetTable(b, first, $('sheet-b-title').textContent));
  else {
    const p = document.createElement('p');
    p.className = 'empty-note';
    p.textContent = 'The daemon keeps one record of this game; a second scoresheet appears here when the daemon keeps both players\' sheets.';
    $('sheet-b').replaceChildren(p);
  }
  const diffText = first >= 0
    ? `First difference at move ${Math.floor(first / 2) + 1} (${first % 2 ? 'Black' : 'White'}): ${a[first] ?? 'nothing'} against ${b[first] ?? 'nothing'}; marked ≠ below.`
    : b ? 'The scoresheets agree.' : '';
  $('sheet-diff').textContent = diffText;
  $('mm-sheets').textContent = diffText || 'One game record; no second sheet to compare.';
}

function sheetTable(moves, diff, caption) {
  const t = document.createElement('table');
  // The moves are in the letters of the chosen language; the headings stay the page's.
  const movesLang = $('lang').value || tableLang();
  const cap = document.createElement('caption');
  cap.className = 'visually-hidden';
  cap.textContent = caption;
  t.append(cap);
  const head = t.insertRow();
  // The colours in the table's words where the language file gives them.
  const lang = tableLang();
  for (const [h, own] of [['No.', false], [app.words.white, true], [app.words.black, true]]) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = h;
    if (own) th.lang = lang;
    head.append(th);
  }
  if (!moves.length) {
    const r = t.insertRow();
    const td = r.insertCell();
    td.colSpan = 3;
    td.textContent = 'No moves yet.';
  }
  for (let i = 0; i < moves.length; i += 2) {
    const r = t.insertRow();
    r.insertCell().textContent = String(i / 2 + 1);
    for (const j of [i, i + 1]) {
      const td = r.insertCell();
      td.textContent = moves[j] ?? '';
      td.lang = movesLang;
      if (j === diff) {
        td.classList.add('diff');
        td.setAttribute('aria-label', `${moves[j] ?? 'nothing'}, first difference`);
      }
    }
  }
  return t;
}

function addTranscript(who, text, lang) {
  const li = document.createElement('li');
  const w = document.createElement('span');
  w.className = 'who';
  w.textContent = { blind: 'to the blind player', opponent: 'to the opponent', arbiter: 'to the arbiter', all: 'to everyone' }[who] || who;
  li.append(w, ': ', inLang(text, lang));
  const list = $('transcript');
  list.append(li);
  while (list.children.length > 200) list.firstChild.remove();
  list.scrollTop = list.scrollHeight;
}

function showPromotion(uci) {
  const box = $('promotion-buttons');
  box.replaceChildren();
  for (const [key, role] of [['q', 'queen'], ['r', 'rook'], ['b', 'bishop'], ['n', 'knight']]) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = app.words.pieces[role];
    b.lang = tableLang();
    b.addEventListener('click', async () => {
      const r = await ask('promote ' + key);
      if (okText(r) === null) { showError(r); return; }
      hideKeepingFocus('promotion', 'move-text');
      // The buttons are gone: the focus goes on to the move entry, not to the page's top.
      $('move-text').focus();
      $('preview').textContent = `Promotion chosen: ${app.words.pieces[role]}.`;
    });
    box.append(b);
  }
  $('promotion-title').replaceChildren('Promotion pending on ', inLang(squareWords(uci.slice(2, 4)), tableLang()), ': choose the new piece');
  $('promotion').hidden = false;
}

function showError(reply) {
  const text = refusal(reply);
  $('move-error').textContent = text;
  announce(text, true, 'en', 'reply');
}

// ---------- the board by keyboard ----------

// ---------- the position: moves and attacks, for the command line ----------

// The position of a FEN: the squares, the side to move, castling rights and the en-passant
// square. Enough chess to name a square's legal moves and attackers without asking the daemon.
function position(fen) {
  const f = (fen || '').split(' ');
  return { squares: parseFen(fen || ''), turn: f[1] === 'b' ? 'b' : 'w', castling: f[2] || '-', ep: f[3] || '-' };
}

const sqAt = (f, r) => (f >= 0 && f < 8 && r >= 1 && r <= 8 ? FILES[f] + r : null);
const colorOf = (p) => (p === p.toUpperCase() ? 'w' : 'b');
const LINES = { r: [[1, 0], [-1, 0], [0, 1], [0, -1]], b: [[1, 1], [1, -1], [-1, 1], [-1, -1]] };
const KNIGHT = [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]];
const KING = [...LINES.r, ...LINES.b];

// The squares a piece on `sq` attacks (for a pawn: its two diagonals, not its pushes).
function attacksOf(squares, sq) {
  const p = squares[sq];
  const f = FILES.indexOf(sq[0]);
  const r = Number(sq[1]);
  const kind = p.toLowerCase();
  const out = [];
  const steps = (list) => { for (const [df, dr] of list) { const t = sqAt(f + df, r + dr); if (t) out.push(t); } };
  const slide = (list) => {
    for (const [df, dr] of list) {
      for (let i = 1; i < 8; i++) {
        const t = sqAt(f + df * i, r + dr * i);
        if (!t) break;
        out.push(t);
        if (squares[t]) break;
      }
    }
  };
  if (kind === 'p') steps(colorOf(p) === 'w' ? [[-1, 1], [1, 1]] : [[-1, -1], [1, -1]]);
  else if (kind === 'n') steps(KNIGHT);
  else if (kind === 'k') steps(KING);
  else if (kind === 'b') slide(LINES.b);
  else if (kind === 'r') slide(LINES.r);
  else if (kind === 'q') { slide(LINES.b); slide(LINES.r); }
  return out;
}

// The squares of the pieces of `color` ('w' or 'b', or both when omitted) attacking `target`.
function attackersOf(squares, target, color) {
  return Object.keys(squares)
    .filter((sq) => (!color || colorOf(squares[sq]) === color) && attacksOf(squares, sq).includes(target))
    .sort();
}

function inCheck(squares, color) {
  const king = Object.keys(squares).find((sq) => squares[sq] === (color === 'w' ? 'K' : 'k'));
  return Boolean(king) && attackersOf(squares, king, color === 'w' ? 'b' : 'w').length > 0;
}

// The legal moves of the piece on `from` (its side to move), as target squares.
function legalTargets(pos, from) {
  const { squares } = pos;
  const p = squares[from];
  if (!p || colorOf(p) !== pos.turn) return [];
  const me = pos.turn;
  const f = FILES.indexOf(from[0]);
  const r = Number(from[1]);
  const kind = p.toLowerCase();
  let targets = [];
  if (kind === 'p') {
    const dir = me === 'w' ? 1 : -1;
    const one = sqAt(f, r + dir);
    if (one && !squares[one]) {
      targets.push(one);
      const two = sqAt(f, r + 2 * dir);
      if ((me === 'w' ? r === 2 : r === 7) && two && !squares[two]) targets.push(two);
    }
    for (const t of attacksOf(squares, from)) {
      if ((squares[t] && colorOf(squares[t]) !== me) || t === pos.ep) targets.push(t);
    }
  } else {
    targets = attacksOf(squares, from).filter((t) => !squares[t] || colorOf(squares[t]) !== me);
  }
  if (kind === 'k') {
    const them = me === 'w' ? 'b' : 'w';
    const rank = me === 'w' ? 1 : 8;
    const safe = (sq) => attackersOf(squares, sq, them).length === 0;
    const rights = me === 'w' ? pos.castling.replace(/[a-z]/g, '') : pos.castling.replace(/[A-Z]/g, '').toUpperCase();
    if (from === 'e' + rank && safe(from)) {
      if (rights.includes('K') && !squares['f' + rank] && !squares['g' + rank] && safe('f' + rank) && safe('g' + rank)) targets.push('g' + rank);
      if (rights.includes('Q') && !squares['d' + rank] && !squares['c' + rank] && !squares['b' + rank] && safe('d' + rank) && safe('c' + rank)) targets.push('c' + rank);
    }
  }
  // A move that leaves the own king attacked is not legal.
  return targets.filter((t) => {
    const after = { ...squares };
    delete after[from];
    after[t] = p;
    if (kind === 'p' && t === pos.ep) delete after[t[0] + from[1]];
    return !inCheck(after, me);
  }).sort();
}

// ---------- the board by keyboard ----------

function listPieces(white, kind) {
  const squares = parseFen(app.fen);
  const order = ['k', 'q', 'r', 'b', 'n', 'p'];
  const found = Object.entries(squares)
    .filter(([, p]) => (p === p.toUpperCase()) === white && (!kind || p.toLowerCase() === kind))
    .sort((x, y) => order.indexOf(x[1].toLowerCase()) - order.indexOf(y[1].toLowerCase()) || x[0].localeCompare(y[0]));
  const by = {};
  for (const [sq, p] of found) (by[p.toLowerCase()] ||= []).push(squareWords(sq));
  const parts = order.filter((r) => by[r]).map((r) => `${app.words.pieces[ROLE_KEYS[r]]} ${by[r].join(', ')}`);
  return `${white ? app.words.white : app.words.black}: ${parts.join('; ') || '–'}`;
}

function readLine(cells) {
  const squares = parseFen(app.fen);
  const occupied = cells.filter((c) => squares[c]).map((c) => `${squareWords(c)} ${pieceWords(squares[c])}`);
  return occupied.length ? occupied.join('; ') : '–';
}

const fileCells = (file) => [8, 7, 6, 5, 4, 3, 2, 1].map((r) => file + r);
const rankCells = (rank) => [...FILES].map((f) => f + rank);

// The piece keys after J: the English letters and the table's own (König, Dame, Turm, …).
function pieceKind(letter) {
  const l = letter.toLowerCase();
  const own = app.words && app.words.letters;
  if (own) {
    for (const [name, ch] of Object.entries(own)) {
      if (ch.toLowerCase() === l) return { king: 'k', queen: 'q', rook: 'r', bishop: 'b', knight: 'n', pawn: 'p' }[name];
    }
  }
  return 'kqrbnp'.includes(l) ? l : null;
}

// J then a piece letter: the next such white piece after the focused square (in reading
// order, wrapping); J then Shift and the letter: the next black one.
function jumpToPiece(letter) {
  const kind = pieceKind(letter);
  if (!kind) { announce(`No piece has the letter ${letter}.`); return; }
  const white = letter === letter.toLowerCase();
  const want = white ? kind.toUpperCase() : kind;
  const squares = parseFen(app.fen);
  const { ranks, files } = order();
  const all = ranks.flatMap((r) => files.map((f) => f + r));
  const start = all.indexOf(app.focus);
  for (let i = 1; i <= 64; i++) {
    const sq = all[(start + i) % 64];
    if (squares[sq] === want) { focusSquare(sq); return; }
  }
  announce(`${white ? 'White' : 'Black'} has no such piece.`);
}

function onGridKey(e) {
  const sq = app.focus;
  let f = FILES.indexOf(sq[0]);
  let r = Number(sq[1]);
  const dir = app.flipped ? -1 : 1;
  const key = e.key;
  if (app.jumping && ['Shift', 'CapsLock'].includes(key)) return;
  if (app.jumping) {
    app.jumping = false;
    if (/^[a-zA-Z]$/.test(key)) { e.preventDefault(); jumpToPiece(key); return; }
  }
  let handled = true;
  const lang = tableLang();
  if (key === 'ArrowUp') r = Math.min(8, Math.max(1, r + dir));
  else if (key === 'ArrowDown') r = Math.min(8, Math.max(1, r - dir));
  else if (key === 'ArrowRight') f = Math.min(7, Math.max(0, f + dir));
  else if (key === 'ArrowLeft') f = Math.min(7, Math.max(0, f - dir));
  else if (key === 'Home') f = app.flipped ? 7 : 0;
  else if (key === 'End') f = app.flipped ? 0 : 7;
  else if (/^[a-h]$/.test(key)) f = FILES.indexOf(key);
  else if (/^[1-8]$/.test(key)) r = Number(key);
  else if (key === 'j') app.jumping = true;
  else if (key === 'W') announce(listPieces(true), false, lang, 'reply');
  else if (key === 'B') announce(listPieces(false), false, lang, 'reply');
  else if (key === 'F') announce(app.words.files[f] + ': ' + readLine(fileCells(sq[0])), false, lang, 'reply');
  else if (key === 'R') announce(app.words.ranks[r - 1] + ': ' + readLine(rankCells(sq[1])), false, lang, 'reply');
  else if (key === 'L') announceLastMove();
  else if (key === 'C') announce(clockWords(), false, 'en', 'reply');
  else if (key === 'S') announce($('status-line').textContent + ' ' + $('boards-state').textContent, false, 'en', 'reply');
  else if (key === 'M') { const a = commandAnswer('m ' + sq); announce(a.text, false, a.lang, 'reply'); }
  else if (key === 'A') { const a = commandAnswer('a ' + sq); announce(a.text, false, a.lang, 'reply'); }
  else if (key === '?') $('keys-dialog').showModal();
  else if (key === 'Escape') { app.from = null; updateGridLabels(parseFen(app.fen)); announce('Cleared'); }
  else if (key === 'Enter' || key === ' ') pickSquare(sq);
  else handled = false;
  if (!handled) return;
  e.preventDefault();
  const next = FILES[f] + r;
  if (next !== sq) focusSquare(next);
}

function announceLastMove() {
  if (app.last) announce(lastMoveText(), false, tableLang(), 'reply');
  else announce('No move yet.', false, 'en', 'reply');
}

// ---------- the command line ----------

// A command in the move entry: a single letter, alone or with one argument, or anything
// starting with "/". No move in any notation the daemon reads is a lone letter (SAN, ICCF and
// UCI moves name a square; spoken moves are whole words), so commands never hide a move.
const COMMAND = /^\/?\s*([a-z\[\]?])(?:\s+(\S+))?$/i;
const COMMAND_HELP = 'Commands: c clocks; l last move; t whose turn; i game information; '
  + 'p and a piece letter: those pieces (p N white knights, p n black knights, p white or p black all of a colour); '
  + 's and a file or rank: scan it (s e, s 4); m and a square: its legal moves (m g1); '
  + 'a and a square: who attacks and defends it (a e4); x the pieces captured; [ and ]: step back and forward through the game; '
  + 'h this list.';

function isCommand(text) {
  const m = COMMAND.exec(text.trim());
  return Boolean(m) && (text.trim().startsWith('/') || 'cltipsmahx[]?'.includes(m[1].toLowerCase()));
}

// What a command answers: { text, lang } — the table's language where the answer is its words.
function commandAnswer(text) {
  const m = COMMAND.exec(text.trim());
  if (!m) return { text: `Not a command: ${text}. ${COMMAND_HELP}`, lang: 'en' };
  const cmd = m[1];
  const arg = m[2] || '';
  const lang = tableLang();
  const squares = parseFen(app.fen);
  const v = app.view;
  switch (cmd.toLowerCase() === 'p' || cmd.toLowerCase() === 's' ? cmd.toLowerCase() : cmd) {
    case 'c': return { text: clockWords(), lang: 'en' };
    case 'l': return app.last ? { text: lastMoveText(), lang } : { text: 'No move yet.', lang: 'en' };
    case 't': {
      if (app.end || (app.status.result && app.status.result !== '*')) return { text: $('status-line').textContent, lang: 'en' };
      const turn = position(app.fen).turn === 'w' ? 'White' : 'Black';
      return { text: `${turn} to move.`, lang: 'en' };
    }
    case 'i': {
      const who = (name) => name || 'not named';
      const parts = [
        `Table ${app.table}.`,
        `White: ${who(v && v.white)}. Black: ${who(v && v.black)}.`,
        `Time control: ${timeControlWords(v && v.time_control)}.`,
        v && v.peg_side ? `The blind player plays ${v.peg_side}.` : '',
        `${plural(Number(app.status.ply) || 0, 'half-move', 'half-moves')} played.`,
      ];
      return { text: parts.filter(Boolean).join(' '), lang: 'en' };
    }
    case 'p': {
      if (!arg) return { text: 'p needs a piece letter or a colour: p N, p n, p white.', lang: 'en' };
      const colour = arg.toLowerCase();
      if (colour === 'white' || colour === app.words.white.toLowerCase()) return { text: listPieces(true), lang };
      if (colour === 'black' || colour === app.words.black.toLowerCase()) return { text: listPieces(false), lang };
      const kind = pieceKind(arg[0]);
      if (!kind || arg.length > 1) return { text: `No piece has the letter ${arg}.`, lang: 'en' };
      return { text: listPieces(arg[0] === arg[0].toUpperCase(), kind), lang };
    }
    case 's': {
      if (/^[a-h]$/.test(arg)) return { text: `${app.words.files[FILES.indexOf(arg)]}: ${readLine(fileCells(arg))}`, lang };
      if (/^[1-8]$/.test(arg)) return { text: `${app.words.ranks[Number(arg) - 1]}: ${readLine(rankCells(arg))}`, lang };
      return { text: 's needs a file a to h or a rank 1 to 8: s e, s 4.', lang: 'en' };
    }
    case 'm': case 'M': {
      if (!/^[a-h][1-8]$/.test(arg)) return { text: 'm needs a square: m g1.', lang: 'en' };
      const p = squares[arg];
      if (!p) return { text: `${squareWords(arg)}: –`, lang };
      const pos = position(app.fen);
      if (colorOf(p) !== pos.turn) {
        const hits = attacksOf(squares, arg);
        return { text: `${squareWords(arg)}, ${pieceWords(p)} → ${hits.map(squareWords).join(', ') || '–'}`, lang };
      }
      const targets = legalTargets(pos, arg);
      return { text: `${squareWords(arg)}, ${pieceWords(p)}: ${targets.map(squareWords).join(', ') || '–'}`, lang };
    }
    case 'a': case 'A': {
      if (!/^[a-h][1-8]$/.test(arg)) return { text: 'a needs a square: a e4.', lang: 'en' };
      const side = (c) => attackersOf(squares, arg, c).map((sq) => `${pieceWords(squares[sq])} ${squareWords(sq)}`).join(', ') || '–';
      return { text: `${squareWords(arg)}. ${app.words.white}: ${side('w')}. ${app.words.black}: ${side('b')}.`, lang };
    }
    case 'x': return { text: capturedWords(app.fen), lang };
    case '[': case ']': return stepThroughGame(cmd === '[' ? -1 : 1);
    case 'h': case '?': return { text: COMMAND_HELP, lang: 'en' };
    default: return { text: `Not a command: ${text}. ${COMMAND_HELP}`, lang: 'en' };
  }
}

// The pieces each side has lost, from the position alone: what is missing from the starting
// set, a promoted piece counted as the pawn it was.
function capturedPieces(fen) {
  const squares = parseFen(fen);
  const start = { q: 1, r: 2, b: 2, n: 2, p: 8 };
  const lost = {};
  for (const white of [true, false]) {
    const have = { k: 0, q: 0, r: 0, b: 0, n: 0, p: 0 };
    for (const p of Object.values(squares)) if ((p === p.toUpperCase()) === white) have[p.toLowerCase()] += 1;
    const out = [];
    let promoted = 0;
    for (const kind of ['q', 'r', 'b', 'n']) {
      promoted += Math.max(0, have[kind] - start[kind]);
      for (let i = have[kind]; i < start[kind]; i++) out.push(kind);
    }
    for (let i = have.p + promoted; i < start.p; i++) out.push('p');
    lost[white ? 'white' : 'black'] = out;
  }
  return lost;
}

function capturedWords(fen) {
  const lost = capturedPieces(fen);
  const side = (color) => lost[color].map((k) => app.words.pieces[ROLE_KEYS[k]]).join(', ') || '–';
  return `${app.words.white}: ${side('white')}. ${app.words.black}: ${side('black')}.`;
}

// [ and ]: the game's record read move by move, from the last move backwards or forwards.
function stepThroughGame(delta) {
  const moves = sheetMoves(app.sheets.a);
  if (!moves.length) return { text: 'No move yet.', lang: 'en' };
  let at = app.step === null ? moves.length : app.step;
  at = Math.max(0, Math.min(moves.length - 1, at + delta));
  if (app.step === null && delta > 0) at = moves.length - 1;
  app.step = at;
  const number = Math.floor(at / 2) + 1;
  return { text: `${number}${at % 2 ? '…' : '.'} ${moves[at]}`, lang: tableLang() };
}

function pickSquare(sq) {
  if (!app.from) {
    app.from = sq;
    updateGridLabels(parseFen(app.fen));
    announce('From ' + squareWords(sq), false, 'en', 'reply');
    return;
  }
  const text = app.from + sq;
  app.from = null;
  updateGridLabels(parseFen(app.fen));
  $('move-text').value = text;
  preview();
  $('move-text').focus();
}

// ---------- move entry and actions ----------

let previewTimer = null;
let previewSeq = 0;
function preview() {
  clearTimeout(previewTimer);
  const text = $('move-text').value.trim();
  $('move-error').textContent = '';
  if (!text) { $('preview').textContent = ''; return; }
  if (isCommand(text)) { $('preview').textContent = 'A command: Enter runs it.'; return; }
  if (tooLong(text)) { $('preview').textContent = ''; $('move-error').textContent = tooLongText(text); return; }
  previewTimer = setTimeout(async () => {
    const seq = ++previewSeq;
    const r = await ask('parse ' + text);
    if (seq !== previewSeq) return;
    const ok = okText(r);
    if (ok === null) { $('preview').textContent = 'Not yet a move: ' + refusal(r).replace(/^Refused \([^)]*\): /, ''); return; }
    const [uci, san, ...spoken] = ok.split(' ');
    $('preview').textContent = `Understood: ${san} (${uci}), “${spoken.join(' ')}”. Press Enter to send.`;
  }, 250);
}

// The daemon reads lines of at most 512 bytes; a longer entry (a paste gone wrong) is refused
// here with a message and never sent.
function tooLong(text) {
  return new TextEncoder().encode('move ' + text).length > MAX_LINE_BYTES;
}

function tooLongText(text) {
  const bytes = new TextEncoder().encode(text).length;
  return `Refused (too long): the entry has ${bytes} bytes; a move or command is at most ${MAX_LINE_BYTES - 5}. Nothing was sent.`;
}

async function sendMove(e) {
  e.preventDefault();
  const text = $('move-text').value.trim();
  if (!text) { showError('error syntax type a move first, e.g. e4, 5254 or Springer Felix drei; or h for the commands'); return; }
  clearTimeout(previewTimer);
  previewSeq++;
  if (tooLong(text)) {
    const why = tooLongText(text);
    $('move-error').textContent = why;
    announce(why, true, 'en', 'reply');
    return;
  }
  if (isCommand(text)) {
    const answer = commandAnswer(text);
    $('move-error').textContent = '';
    $('preview').replaceChildren(inLang(answer.text, answer.lang));
    announce(answer.text, false, answer.lang, 'reply');
    $('move-text').value = '';
    return;
  }
  const r = await ask('move ' + text);
  const ok = okText(r);
  if (ok === null) { showError(r); return; }
  $('move-error').textContent = '';
  $('preview').replaceChildren('Played ', inLang(ok.split(' ')[1] || '', tableLang()), '.');
  $('move-text').value = '';
}

async function simple(line, out) {
  const r = await ask(line);
  const ok = okText(r);
  const text = ok === null ? refusal(r) : replyWords(ok);
  $(out).textContent = text;
  if (ok === null) announce(text, true);
  return ok !== null;
}

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

async function exportAs(format) {
  const r = await ask('export ' + format);
  const ok = okText(r);
  if (ok === null) { $('export-result').textContent = refusal(r); return; }
  let text;
  try { text = JSON.parse(ok); } catch (e) {
    $('export-result').textContent = 'The daemon\'s export could not be read: ' + e.message;
    return;
  }
  const ext = { pgn: 'pgn', iccf: 'txt', braille: 'txt', brf: 'brf' }[format];
  const name = `${app.table}.${format === 'braille' ? 'braille.txt' : format === 'iccf' ? 'iccf.txt' : ext}`;
  download(name, text, format === 'brf' ? 'application/octet-stream' : 'text/plain;charset=utf-8');
  $('export-result').textContent = `Saved ${name} (${text.length} characters).`;
}

async function exportAudio() {
  $('export-result').textContent = 'Fetching the audio record…';
  try {
    const r = await fetch('/audio/' + encodeURIComponent(app.table), { headers: { Authorization: 'Bearer ' + app.token } });
    if (!r.ok) { $('export-result').textContent = 'No audio record: ' + (await r.text()).trim(); return; }
    const blob = await r.blob();
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = app.table + '.wav';
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    $('export-result').textContent = `Saved ${app.table}.wav (${blob.size} bytes).`;
  } catch (e) {
    $('export-result').textContent = 'The audio record could not be fetched: ' + e.message;
  }
}

// ---------- wiring ----------

function wire() {
  $('login-form').addEventListener('submit', (e) => { e.preventDefault(); login($('token').value); });
  $('logout').addEventListener('click', () => {
    // Logging out forgets the token everywhere: the tab's session, the page, the field.
    sessionStorage.removeItem('annabella-token');
    stopReconnecting();
    if (conn) { const c = conn; conn = null; c.onClose = () => {}; c.close(); }
    app.token = '';
    app.table = '';
    $('token').value = '';
    setConnection('Logged out.');
    show('login-view');
    $('token').focus();
  });
  $('hear').addEventListener('change', () => {
    app.hearing = $('hear').value;
    sessionStorage.setItem('annabella-hearing', app.hearing);
  });
  $('to-tables').addEventListener('click', () => { show('tables-view'); $('tables-title').focus(); });
  $('flip').addEventListener('click', () => {
    app.flipped = !app.flipped;
    $('flip').textContent = app.flipped ? 'Flip board (view from White)' : 'Flip board (view from Black)';
    renderGrid();
    renderBoard();
    announce('Board seen from ' + (app.flipped ? 'Black' : 'White'));
  });
  $('board-grid').addEventListener('keydown', onGridKey);
  $('board-grid').addEventListener('click', (e) => {
    const sq = e.target.dataset?.square;
    if (sq) { focusSquare(sq); pickSquare(sq); }
  });
  $('keys-help').addEventListener('click', () => $('keys-dialog').showModal());
  $('keys-close').addEventListener('click', () => $('keys-dialog').close());
  $('move-form').addEventListener('submit', sendMove);
  $('move-text').addEventListener('input', preview);
  $('lang').addEventListener('change', async () => {
    const ok = await simple('lang ' + $('lang').value, 'action-result');
    if (ok) { refreshSheets(); preview(); }
  });
  $('ask-clock').addEventListener('click', async () => { await simple('clock', 'action-result'); refreshClock(); });
  $('offer-draw').addEventListener('click', () => simple('offer-draw', 'action-result'));
  $('claim-draw').addEventListener('click', () => {
    const move = $('move-text').value.trim();
    simple(move ? 'claim-draw ' + move : 'claim-draw', 'action-result');
  });
  $('undo').addEventListener('click', () => simple('undo', 'action-result'));
  $('resign').addEventListener('click', () => $('resign-dialog').showModal());
  $('resign-no').addEventListener('click', () => $('resign-dialog').close());
  $('resign-yes').addEventListener('click', async () => {
    $('resign-dialog').close();
    await simple('resign', 'action-result');
  });
  // With a takeback proposed the arbiter decides it; otherwise the game's record stands and
  // confirming only acknowledges the board's guided correction.
  $('mm-confirm').addEventListener('click', () => {
    if (app.resolution) { simple('resolve confirm', 'mm-result'); return; }
    $('mm-result').textContent = 'Confirmed: the game stands; the board is being corrected as guided.';
    announce($('mm-result').textContent);
  });
  $('mm-reject').addEventListener('click', () => simple('resolve reject', 'mm-result'));
  $('mm-override-form').addEventListener('submit', (e) => {
    e.preventDefault();
    simple('resolve override ' + $('mm-override-plies').value.trim(), 'mm-result');
  });
  $('mm-undo').addEventListener('click', () => simple('undo', 'mm-result'));
  $('record-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const moves = $('record-moves').value.trim();
    if (!moves) { $('sheet-result').textContent = 'Type the sheet\'s moves first, e.g. 1. e4 e5 2. Sf3'; return; }
    if (await simple(`record ${$('record-side').value} ${moves}`, 'sheet-result')) refreshSheets();
  });
  $('lag-confirm').addEventListener('click', async () => {
    if (await simple('confirm ' + $('lagging').dataset.side, 'sheet-result')) { hideKeepingFocus('lagging', 'sheets-title'); refreshSheets(); }
  });
  $('lag-dispute').addEventListener('click', async () => {
    if (await simple('dispute ' + $('lagging').dataset.side, 'sheet-result')) hideKeepingFocus('lagging', 'sheets-title');
  });
  $('adjust-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    // The reply ("white 1:31:55") arrives after the event; it must say as much as the event did,
    // so the result reads the same whichever comes last.
    const color = $('adjust-color').value;
    const secs = $('adjust-seconds').value.trim().replace('−', '-');
    const r = await ask(`adjust ${color} ${secs}`);
    const ok = okText(r);
    const text = ok === null ? refusal(r) : `Clock adjusted: ${color} ${secs} s, ${ok.slice(color.length + 1)} left.`;
    $('arbiter-result').textContent = text;
    if (ok === null) announce(text, true);
  });
  $('penalty-form').addEventListener('submit', (e) => { e.preventDefault(); simple('penalty ' + $('penalty-color').value, 'arbiter-result'); });
  $('pause').addEventListener('click', () => simple('pause', 'arbiter-result'));
  $('resume').addEventListener('click', () => simple('resume', 'arbiter-result'));
  for (const b of document.querySelectorAll('[data-export]')) b.addEventListener('click', () => exportAs(b.dataset.export));
  $('export-audio').addEventListener('click', exportAudio);
  $('skip-link').addEventListener('click', (e) => { e.preventDefault(); $('move-text').focus(); });

  setInterval(renderClock, 250);
  // The local clock ticks; the daemon's reading corrects it now and then.
  setInterval(() => { if (conn && app.table) refreshClock(); }, 15000);

  // An arbiter can hand out a link with the token in the fragment (never sent to the server).
  const hash = new URLSearchParams(location.hash.slice(1));
  const fromLink = hash.get('token');
  const saved = fromLink || sessionStorage.getItem('annabella-token');
  if (fromLink) history.replaceState(null, '', location.pathname);
  if (saved) { $('token').value = saved; login(saved); }
  else $('token').focus();
}

wire();
