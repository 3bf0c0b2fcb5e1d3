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
  lastMove: '',
  status: {},
  sheets: { a: null, b: null, twoSheets: false },
  guide: { peg: '', normal: '' },
  // The two-sheet procedure: the daemon's proposal and its reasons, until decided.
  resolution: null,
  explain: [],
};

// ---------- announcements ----------

function announce(text, urgent) {
  const region = urgent ? $('live-assertive') : $('live-polite');
  // Emptying first makes a repeated phrase ("in Ordnung") be read again.
  region.textContent = '';
  setTimeout(() => { region.textContent = text; }, 30);
}

// ---------- the connection ----------

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
      this.ws.onopen = () => resolve();
      this.ws.onerror = () => reject(new Error('the page could not open its connection to the daemon'));
      this.ws.onmessage = (m) => this.receive(String(m.data));
      this.ws.onclose = () => {
        clearInterval(this.timer);
        for (const p of this.pending) p.resolve('error state the connection to the daemon is closed');
        this.pending = [];
        this.onClose();
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
  if (!conn) return 'error state not connected';
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
  if (conn) conn.close();
  conn = new Connection(onEvent, onClosed);
  try {
    await conn.open();
  } catch (e) {
    $('login-error').textContent = e.message + '. Is annabella serve running?';
    conn = null;
    return;
  }
  const reply = await ask('auth ' + app.token);
  const ok = okText(reply);
  if (ok === null) {
    $('login-error').textContent = 'Login failed. ' + refusal(reply);
    conn.close();
    conn = null;
    return;
  }
  const [role, table] = ok.split(' ');
  app.role = role;
  sessionStorage.setItem('annabella-token', app.token);
  setConnection(`Connected as ${role}.`);
  fillLanguages();
  const tables = okText(await ask('tables'));
  app.tables = tables ? tables.split(' ').filter(Boolean) : (table ? [table] : []);
  renderTables();
  if (app.tables.length === 1) {
    await openTable(app.tables[0]);
  } else {
    show('tables-view');
    $('tables-title').focus();
  }
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
  $('record-form').hidden = !app.sheets.twoSheets;
  await refreshAll();
  renderGrid();
  $('table-title').setAttribute('tabindex', '-1');
  $('table-title').focus();
  // For scripts and tests: the table is set up and has the focus where a user starts.
  document.body.dataset.ready = name;
}

function onClosed() {
  setConnection('The connection to the daemon is closed. Log in again to reconnect.');
  announce('The connection to the daemon is closed.', true);
  conn = null;
  show('login-view');
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
  await Promise.all([refreshBoard(), refreshStatus(), refreshClock(), refreshSheets()]);
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
    $('promotion').hidden = true;
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
        // Marked by a cross and a frame, not by colour alone.
        svg.append(el('rect', { x: x + 1, y: y + 1, width: 18, height: 18, fill: 'none', stroke: '#c00', 'stroke-width': 2 }));
        svg.append(el('path', { d: `M${x + 3} ${y + 3} L${x + 17} ${y + 17} M${x + 17} ${y + 3} L${x + 3} ${y + 17}`, stroke: '#c00', 'stroke-width': 2 }));
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
  // A page opened in the middle of a game names the last move from the record.
  const moves = sheetMoves(app.sheets.a);
  if (!app.lastMove && moves.length) {
    app.lastMove = moves[moves.length - 1];
    renderBoard();
  }
  renderSheets();
});

function onEvent(e) {
  switch (e.event) {
    case 'say':
      addTranscript(e.listener, e.text);
      // The utterance's own urgency, the same the speech interrupts for.
      announce(e.text, e.urgent);
      break;
    case 'move':
      app.lastMove = `${e.san} (${e.uci})`;
      $('promotion').hidden = true;
      refreshBoard(); refreshClock(); refreshSheets(); refreshStatus();
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
      const taken = e.retracted.length ? e.retracted.join(', ') : 'none';
      $('mm-result').textContent = `Takeback carried out: back to ${e.plies} half-moves; moves taken back ${taken}; clocks White ${e.white}, Black ${e.black}.`;
      $('mm-clocks').textContent = `The clocks were put back: White ${e.white}, Black ${e.black}.`;
      announce($('mm-result').textContent);
      app.lastMove = '';
      refreshAll();
      break;
    }
    case 'recorded':
      $('sheet-result').textContent = 'The resolution was written to the table\'s record.';
      break;
    case 'undo': case 'begin': case 'restored': case 'end': case 'lagged':
      refreshAll();
      if (e.event === 'end') $('action-result').textContent = `Game over: ${e.result} ${e.description}`;
      break;
    case 'draw-offer':
      refreshStatus(); refreshClock();
      $('action-result').textContent = `${e.color} offers a draw`;
      break;
    case 'wrong-claim':
      refreshStatus(); refreshClock();
      $('action-result').textContent = `Wrong draw claim: ${e.color} ${e.why}`;
      break;
    case 'clock-adjusted': case 'clock': case 'penalty': case 'resumed':
      refreshClock();
      $('arbiter-result').textContent = arbiterEvent(e);
      break;
    case 'board': case 'in-sync':
      if (e.event === 'in-sync') app.guide[e.board] = '';
      refreshStatus();
      break;
    case 'guide':
      app.guide[e.board] = e.corrections.join('; ');
      refreshStatus();
      refreshBoards();
      break;
    case 'peg': case 'normal': {
      // A move brings its own `move` event, which refreshes everything.
      if (['touched', 'move', 'replicated'].includes(e.what)) break;
      if (e.what === 'promotion-pending') showPromotion(e.detail.split(' ')[0].replace(/:$/, ''));
      if (e.what === 'mismatch' || e.what === 'illegal') app.guide[e.board] = e.detail;
      if (e.what === 'in-sync') app.guide[e.board] = '';
      refreshStatus();
      break;
    }
    case 'result-offered':
      $('arbiter-result').textContent =
        `Result shown on the ${e.board} board (DGT's kings): ${e.result}. The arbiter confirms it with: result ${e.result}`;
      break;
    case 'journal-error':
      $('action-result').textContent = `The table could not record the last action (${e.message}); nothing changed.`;
      break;
    case 'shutdown':
      setConnection('The daemon is stopping.');
      break;
    default:
      break;
  }
}

function arbiterEvent(e) {
  if (e.event === 'clock-adjusted') {
    const secs = e.delta_ms / 1000;
    return `Clock adjusted: ${e.color} ${secs >= 0 ? '+' : ''}${secs} s, ${e.remaining} left.`;
  }
  if (e.event === 'clock') return e.running ? 'Clocks running again.' : 'Clocks paused by the arbiter.';
  if (e.event === 'penalty') return `Penalty: ${e.color} illegal move ${e.count}.`;
  return `After the restart: downtime ${e.downtime_ms / 1000} s, charged ${e.charged_ms / 1000} s.`;
}

function onResolution(e) {
  if (e.verdict === 'proposed') {
    const list = (moves) => (moves.length ? moves.join(',') : '-');
    app.resolution = {
      plies: String(e.plies), a: list(e.retract_a), b: list(e.retract_b),
      white: e.used_white, black: e.used_black,
    };
    app.explain = [];
    $('mm-result').textContent = '';
    $('mm-override-plies').value = app.resolution.plies;
    refreshSheets();
  } else if (e.verdict === 'lagging') {
    $('lagging').hidden = false;
    $('lagging').dataset.side = e.side;
    $('lagging-text').textContent = `Sheet ${e.side.toUpperCase()} lags; missing: ${e.missing.join(',')}.`;
  } else if (e.verdict === 'agree') {
    $('sheet-result').textContent = 'The sheets agree.';
    $('lagging').hidden = true;
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
  $('mm-proposal').textContent = `take the game back to after ${r.plies} half-moves (the last move both sheets agree on); taken back from sheet A: ${r.a}, from sheet B: ${r.b}. Time used then: White ${r.white}, Black ${r.black}.`;
  $('mm-sheets').textContent = $('sheet-diff').textContent || 'see below.';
  if (!app.guide.peg && !app.guide.normal) $('mm-corrections').textContent = 'nothing; the boards agree with the game.';
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

function cellLabel(sq, squares) {
  const p = squares[sq];
  return squareWords(sq) + ', ' + (p ? pieceWords(p) : 'empty');
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
  const last = /^([a-h][1-8])([a-h][1-8])/.exec(app.lastMove.replace(/^.*\(/, ''));
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
  $('board-caption').textContent = 'Seen from ' + (app.flipped ? 'Black' : 'White') + '. ' + (app.lastMove ? 'Last move: ' + app.lastMove + '.' : 'No move yet.');
  updateGridLabels(squares);
}

function renderGrid() {
  const grid = $('board-grid');
  grid.replaceChildren();
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
  const turn = st.turn ? st.turn[0].toUpperCase() + st.turn.slice(1) + ' to move' : '';
  const result = st.result && st.result !== '*' ? 'Result ' + st.result : 'Game in progress';
  const offer = st['draw-offer'] && st['draw-offer'] !== 'none' ? ', ' + st['draw-offer'] + ' offers a draw' : '';
  $('status-line').textContent = `${result}. ${turn}, ply ${st.ply ?? '?'}${offer}.`;
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
      li.textContent = `${name}: ${b.link}, ${sync}.` + (app.guide[board] ? ' Needs: ' + app.guide[board] : '');
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
  if (!board) {
    if (!panel.hidden) $('mm-state').textContent = 'Resolved: the boards agree with the game.';
    return;
  }
  $('mm-state').textContent = 'Open: a board differs from the game.';
  // A new mismatch starts a new procedure; an outcome already shown stays until then.
  if (panel.hidden) $('mm-result').textContent = '';
  panel.hidden = false;
  const name = board === 'peg' ? 'the peg board' : 'the opponent\'s board';
  $('mm-what').textContent = `${name} differs from the game after ply ${app.status.ply}.`;
  $('mm-corrections').textContent = app.guide[board] || 'waiting for the board\'s report';
  $('mm-proposal').textContent = app.guide[board]
    ? `the game's record stands; correct ${name}: ${app.guide[board]}.`
    : 'the game\'s record stands; correct the board as it guides.';
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
    box.querySelector('.running-mark').textContent = running ? '◀ running' : '';
    box.classList.toggle('running', running);
    box.classList.toggle('flag', left <= 0);
  }
  $('clock-moves').textContent = `${c.moves} moves played. ` + (c.running === 'none' ? 'Clocks stopped.' : '');
}

function clockWords() {
  const c = app.clock;
  if (!c) return 'no clock reading yet';
  const gone = (performance.now() - c.at) / 1000;
  const left = (color) => hms(c.running === color ? c[color] - gone : c[color]);
  return `${app.words.white} ${left('white')}, ${app.words.black} ${left('black')}, ${c.moves} moves`;
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
  const cap = document.createElement('caption');
  cap.className = 'visually-hidden';
  cap.textContent = caption;
  t.append(cap);
  const head = t.insertRow();
  for (const h of ['No.', 'White', 'Black']) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = h;
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
      if (j === diff) {
        td.classList.add('diff');
        td.setAttribute('aria-label', `${moves[j] ?? 'nothing'}, first difference`);
      }
    }
  }
  return t;
}

function addTranscript(who, text) {
  const li = document.createElement('li');
  const w = document.createElement('span');
  w.className = 'who';
  w.textContent = { blind: 'to the blind player', opponent: 'to the opponent', arbiter: 'to the arbiter', all: 'to everyone' }[who] || who;
  li.append(w, ': ' + text);
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
    b.addEventListener('click', async () => {
      const r = await ask('promote ' + key);
      if (okText(r) === null) showError(r); else $('promotion').hidden = true;
    });
    box.append(b);
  }
  $('promotion-title').textContent = `Promotion pending on ${squareWords(uci.slice(2, 4))}: choose the new piece`;
  $('promotion').hidden = false;
}

function showError(reply) {
  const text = refusal(reply);
  $('move-error').textContent = text;
  announce(text, true);
}

// ---------- the board by keyboard ----------

function listPieces(white) {
  const squares = parseFen(app.fen);
  const order = ['k', 'q', 'r', 'b', 'n', 'p'];
  const found = Object.entries(squares)
    .filter(([, p]) => (p === p.toUpperCase()) === white)
    .sort((x, y) => order.indexOf(x[1].toLowerCase()) - order.indexOf(y[1].toLowerCase()) || x[0].localeCompare(y[0]));
  const by = {};
  for (const [sq, p] of found) (by[p.toLowerCase()] ||= []).push(squareWords(sq));
  const parts = order.filter((r) => by[r]).map((r) => `${app.words.pieces[ROLE_KEYS[r]]} ${by[r].join(', ')}`);
  return `${white ? app.words.white : app.words.black}: ${parts.join('; ') || 'no pieces'}`;
}

function readLine(sq, alongFile) {
  const squares = parseFen(app.fen);
  const cells = alongFile
    ? [8, 7, 6, 5, 4, 3, 2, 1].map((r) => sq[0] + r)
    : [...FILES].map((f) => f + sq[1]);
  const occupied = cells.filter((c) => squares[c]).map((c) => `${squareWords(c)} ${pieceWords(squares[c])}`);
  return occupied.length ? occupied.join('; ') : 'empty';
}

function onGridKey(e) {
  const sq = app.focus;
  let f = FILES.indexOf(sq[0]);
  let r = Number(sq[1]);
  const dir = app.flipped ? -1 : 1;
  const key = e.key;
  let handled = true;
  if (key === 'ArrowUp') r = Math.min(8, Math.max(1, r + dir));
  else if (key === 'ArrowDown') r = Math.min(8, Math.max(1, r - dir));
  else if (key === 'ArrowRight') f = Math.min(7, Math.max(0, f + dir));
  else if (key === 'ArrowLeft') f = Math.min(7, Math.max(0, f - dir));
  else if (key === 'Home') f = app.flipped ? 7 : 0;
  else if (key === 'End') f = app.flipped ? 0 : 7;
  else if (/^[a-h]$/.test(key)) f = FILES.indexOf(key);
  else if (/^[1-8]$/.test(key)) r = Number(key);
  else if (key === 'W') announce(listPieces(true));
  else if (key === 'B') announce(listPieces(false));
  else if (key === 'F') announce(app.words.files[f] + ': ' + readLine(sq, true));
  else if (key === 'R') announce(app.words.ranks[r - 1] + ': ' + readLine(sq, false));
  else if (key === 'L') announce(app.lastMove ? 'Last move ' + app.lastMove : 'No move yet');
  else if (key === 'C') announce(clockWords());
  else if (key === 'S') announce($('status-line').textContent + ' ' + $('boards-state').textContent);
  else if (key === '?') $('keys-dialog').showModal();
  else if (key === 'Escape') { app.from = null; updateGridLabels(parseFen(app.fen)); announce('Cleared'); }
  else if (key === 'Enter' || key === ' ') pickSquare(sq);
  else handled = false;
  if (!handled) return;
  e.preventDefault();
  const next = FILES[f] + r;
  if (next !== sq) focusSquare(next);
}

function pickSquare(sq) {
  if (!app.from) {
    app.from = sq;
    updateGridLabels(parseFen(app.fen));
    announce('From ' + squareWords(sq));
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

async function sendMove(e) {
  e.preventDefault();
  const text = $('move-text').value.trim();
  if (!text) { showError('error syntax type a move first, e.g. e4, 5254 or Springer Felix drei'); return; }
  clearTimeout(previewTimer);
  previewSeq++;
  const r = await ask('move ' + text);
  const ok = okText(r);
  if (ok === null) { showError(r); return; }
  $('move-error').textContent = '';
  $('preview').textContent = 'Played ' + ok.split(' ')[1] + '.';
  $('move-text').value = '';
}

async function simple(line, out) {
  const r = await ask(line);
  const ok = okText(r);
  const text = ok === null ? refusal(r) : (ok || 'done');
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
    sessionStorage.removeItem('annabella-token');
    if (conn) { const c = conn; conn = null; c.onClose = () => {}; c.close(); }
    setConnection('Logged out.');
    show('login-view');
  });
  $('to-tables').addEventListener('click', () => { show('tables-view'); });
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
    if (await simple('confirm ' + $('lagging').dataset.side, 'sheet-result')) { $('lagging').hidden = true; refreshSheets(); }
  });
  $('lag-dispute').addEventListener('click', async () => {
    if (await simple('dispute ' + $('lagging').dataset.side, 'sheet-result')) $('lagging').hidden = true;
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
