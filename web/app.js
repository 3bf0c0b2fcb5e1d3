// annabella's table page: the connection, login, staying connected, move entry and the wiring; it runs last.
// Plain script, no build step; loaded in order by index.html (words, chess, events, render, app),
// sharing one global scope.
'use strict';

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
        // A page the daemon had no room for is told why before it is closed.
        const why = this.refusedWith || 'error state the connection to the daemon is closed';
        for (const p of this.pending) p.resolve(why);
        for (const p of this.backlog) p.resolve(why);
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
    else if (line.startsWith('error ')) this.refusedWith = line;
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
    // No room on the daemon (every connection taken, or the last kept for the players): the
    // page says so and tries again by itself.
    const busy = reply.startsWith('error rate') && !/wrong token/.test(reply);
    const reason = reply.replace(/^error \S+ /, '');
    return { error: 'Login failed. ' + refusal(reply), auth: reply.startsWith('error auth'), busy, reason };
  }
  const [role, table] = ok.split(' ');
  return { role, table };
}

// A login the daemon had no room for is tried again, waiting longer each time.
const noRoom = { timer: null, attempt: 0 };

function stopWaitingForRoom() {
  clearTimeout(noRoom.timer);
  noRoom.timer = null;
}

async function login(token, again) {
  stopWaitingForRoom();
  if (!again) noRoom.attempt = 0;
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
  if (got.error && got.busy) {
    const delay = BACKOFF_MS[Math.min(noRoom.attempt, BACKOFF_MS.length - 1)];
    noRoom.attempt += 1;
    // Said once (the error is an alert): the same words on every attempt are not set again.
    const words = `The daemon has no room for this page right now: ${got.reason}. Trying again by itself.`;
    if ($('login-error').textContent !== words) $('login-error').textContent = words;
    setConnection('Waiting for room on the daemon…');
    const waiting = app.token;
    noRoom.timer = setTimeout(() => { if (app.token === waiting) login(waiting, true); }, delay);
    return;
  }
  if (got.error) {
    $('login-error').textContent = got.error;
    $('token').focus();
    return;
  }
  noRoom.attempt = 0;
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
const reconnecting = { timer: null, attempt: 0, focus: null, since: 0, outage: false };
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
  // One outage is announced once, however many attempts it takes (a connection that opens
  // and drops again before the table is back is the same outage), and its end once.
  if (!reconnecting.outage) {
    const active = document.activeElement;
    reconnecting.focus = active && active !== document.body ? active : null;
    reconnecting.attempt = 0;
    reconnecting.since = performance.now();
    reconnecting.outage = true;
    announce(L('connection_lost'), false, labelLang());
  }
  setConnection('The connection to the daemon was lost; reconnecting…');
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
  if (got.error && got.busy) {
    setConnection(`The daemon has no room for this page right now: ${got.reason}. Reconnecting (attempt ${reconnecting.attempt + 1})…`);
    scheduleReconnect();
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
  // A restarted daemon numbers its utterances anew.
  speech.heard.clear();
  await ask('lang ' + $('lang').value);
  await ask('events');
  await refreshAll();
  const took = Math.round(performance.now() - reconnecting.since);
  document.body.dataset.reconnectedMs = String(took);
  setConnection(`Connected as ${app.role}. ${L('reconnected')}`);
  reconnecting.outage = false;
  announce(L('reconnected'), false, labelLang());
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
  pageLabels();
  if (!app.hearing) app.hearing = defaultHearing(app.role);
  $('hear').value = app.hearing;
  renderGrid();
  $('table-title').setAttribute('tabindex', '-1');
  $('table-title').focus();
  // For scripts and tests: the table is set up and has the focus where a user starts.
  document.body.dataset.ready = name;
}


// The page's own labels in the table's language (`[words.page]` of its language file), each
// element marked with that language.
const LABELLED = {
  'board-title': 'board', 'clocks-title': 'clocks', 'entry-title': 'move_entry',
  'actions-title': 'game', 'boards-title': 'physical_boards', 'sheets-title': 'scoresheets',
  'transcript-title': 'said', 'arbiter-title': 'arbiter', 'export-title': 'export', flip: 'flip',
  'keys-help': 'keys', 'send-move': 'send_move', 'ask-clock': 'tell_clock',
  'offer-draw': 'offer_draw', 'claim-draw': 'claim_draw', undo: 'undo', 'undo-own': 'undo_own',
  resign: 'resign', logout: 'log_out', 'to-tables': 'tables', 'claim-title': 'claim_question',
  'claim-explain': 'claim_explain', 'claim-yes': 'claim_yes', 'claim-no': 'keep_playing',
  'resign-title': 'resign_question', 'resign-yes': 'resign_yes', 'resign-no': 'keep_playing',
  'new-game-button': 'new_game', 'result-button': 'result', 'tag-button': 'tag',
  'hear-label': 'read_out', 'hear-opponent': 'hear_opponent', 'hear-blind': 'hear_blind',
  'hear-moves': 'hear_moves', 'hear-all': 'hear_all',
};

function pageLabels() {
  const lang = labelLang();
  for (const [id, key] of Object.entries(LABELLED)) {
    const node = $(id);
    if (!node) continue;
    node.textContent = L(key);
    node.lang = lang;
  }
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
    announce($('preview').textContent, false, 'en', 'reply');
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

// One's own last move withdrawn (`undo`, D.2.8) with one key: a player's only when the last
// move is his; the assistant and the arbiter withdraw the last move.
async function undoOwn() {
  const last = app.last;
  if ((app.role === 'white' || app.role === 'black') && (!last || last.color !== app.role)) {
    const text = 'Refused (not possible now): the last move is not yours.';
    $('action-result').textContent = text;
    announce(text, true, 'en', 'reply');
    return;
  }
  await simple('undo', 'action-result');
}

async function simple(line, out) {
  const r = await ask(line);
  const ok = okText(r);
  const text = ok === null ? refusal(r) : replyWords(ok);
  $(out).textContent = text;
  // The result lines are no live regions: each answer is read once, through the queue.
  announce(text, ok === null, 'en', 'reply');
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
    $('flip').setAttribute('aria-pressed', String(app.flipped));
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
  // A claim is confirmed first: a wrong one gives the opponent time (a stray Enter must not).
  $('claim-draw').addEventListener('click', () => $('claim-dialog').showModal());
  $('claim-no').addEventListener('click', () => $('claim-dialog').close());
  $('claim-yes').addEventListener('click', async () => {
    $('claim-dialog').close();
    const move = $('move-text').value.trim();
    await simple(move ? 'claim-draw ' + move : 'claim-draw', 'action-result');
  });
  $('undo').addEventListener('click', () => simple('undo', 'action-result'));
  $('undo-own').addEventListener('click', undoOwn);
  // One key undoes one's own last move, wherever the focus is (U on the board, too).
  document.addEventListener('keydown', (e) => {
    if (e.altKey && !e.ctrlKey && !e.metaKey && (e.key === 'u' || e.key === 'U') && app.table && app.role !== 'observer') {
      e.preventDefault();
      undoOwn();
    }
  });
  $('new-game-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const fen = $('new-game-fen').value.trim();
    simple(fen ? 'new-game fen ' + fen : 'new-game', 'arbiter-result');
  });
  $('result-form').addEventListener('submit', (e) => { e.preventDefault(); simple('result ' + $('result-value').value, 'arbiter-result'); });
  $('tag-form').addEventListener('submit', (e) => {
    e.preventDefault();
    simple(`tag ${$('tag-name').value} ${$('tag-value').value.trim()}`, 'arbiter-result');
  });
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
    const text = ok === null ? refusal(r) : `Clock adjusted: ${color} ${secs} s, ${durationWords(seconds(ok.slice(color.length + 1)))} left.`;
    $('arbiter-result').textContent = text;
    announce(text, ok === null, 'en', 'reply');
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

