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
      this.ws.onerror = () => reject(new Error(L('ws_failed')));
      this.ws.onmessage = (m) => this.receive(String(m.data));
      this.ws.onclose = () => {
        clearInterval(this.timer);
        // A page the daemon had no room for is told why before it is closed.
        const why = this.refusedWith || `error state ${L('ws_closed')}`;
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
        resolve(`error state ${L('ws_closed')}`);
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
      return Promise.resolve(`error syntax ${L('entry_bytes', { bytes, max: MAX_LINE_BYTES })}`);
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
  if (!conn) return `error state ${L('not_connected_daemon')}`;
  return conn.request(line);
}

function okText(reply) {
  return reply.startsWith('ok ') ? reply.slice(3) : reply === 'ok' ? '' : null;
}

// "error move illegal move …" in words: what kind of refusal, and the daemon's message.
function refusal(reply) {
  const m = /^error (\S+) ?(.*)$/.exec(reply);
  if (!m) return reply;
  return L('refused', { code: codeWords(m[1]), why: m[2] });
}

// The daemon's own message of a refusal, without the kind ("error move illegal move …").
function refusalWhy(reply) {
  const m = /^error (\S+) ?(.*)$/.exec(reply);
  return m ? m[2] : reply;
}

// ---------- login and the tables ----------

function show(view) {
  for (const v of ['login-view', 'tables-view', 'table-view']) $(v).hidden = v !== view;
  $('nav').hidden = view === 'login-view';
}

function setConnection(text) {
  $('connection').textContent = text;
  $('connection').lang = labelLang();
}

// Opens a connection and logs in: the role and table, or why not (`error` in words, and
// `auth` when the token itself was refused).
async function connect(token) {
  const c = new Connection(onEvent, onClosed);
  try {
    await c.open();
  } catch (e) {
    return { error: L('is_it_running', { why: e.message }) };
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
    return { error: L('login_failed', { why: refusal(reply) }), auth: reply.startsWith('error auth'), busy, reason };
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
    $('login-error').textContent = L('enter_token');
    return;
  }
  if (/\s/.test(app.token)) {
    $('login-error').textContent = L('token_spaces');
    return;
  }
  if (!app.words) {
    try {
      await loadWords();
    } catch (e) {
      $('login-error').textContent = L('words_failed', { error: e.message });
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
    const words = L('no_room', { reason: got.reason });
    if ($('login-error').textContent !== words) $('login-error').textContent = words;
    setConnection(L('waiting_room'));
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
  setConnection(L('connected_as', { role: roleName(app.role) }));
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
    setConnection(L('closed_relogin'));
    announce(L('closed'), true);
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
    setConnection(L('not_connected'));
    $('token').focus();
    return;
  }
  if (got.error && got.busy) {
    setConnection(L('no_room_retry', { reason: got.reason, n: reconnecting.attempt + 1 }));
    scheduleReconnect();
    return;
  }
  if (got.error) {
    setConnection(L('lost_retry', { n: reconnecting.attempt + 1 }));
    scheduleReconnect();
    return;
  }
  app.role = got.role;
  const chosen = await ask('table ' + app.table);
  if (okText(chosen) === null) { setConnection(L('reconnected_but', { why: refusal(chosen) })); return; }
  // A restarted daemon numbers its utterances anew.
  speech.heard.clear();
  await ask('lang ' + $('lang').value);
  await ask('events');
  await refreshAll();
  const took = Math.round(performance.now() - reconnecting.since);
  document.body.dataset.reconnectedMs = String(took);
  setConnection(`${L('connected_as', { role: roleName(app.role) })} ${L('reconnected')}`);
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
    li.textContent = L('no_tables');
    list.append(li);
  }
  for (const name of app.tables) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = L('open_table', { table: name });
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
  $('move-label').textContent = L(reads ? 'command_label' : 'move_label');
  $('move-label').lang = labelLang();
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
  $('table-title').textContent = L('table_title', { table: name, role: roleName(app.role) });
  document.title = 'annabella — ' + name;
  show('table-view');
  // Moves typed here are read in the table's language unless the user picks another.
  await ask('lang ' + $('lang').value);
  await ask('events');
  // Two scoresheets once the daemon keeps both (sheet a / sheet b); one record until then.
  app.sheets.twoSheets = okText(await ask('sheet a')) !== null;
  sheetTitles();
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

// The page's language is its labels' (the daemon's words inside are marked with the table's);
// the static texts name their label with `data-l`.
function pageLabels() {
  const lang = labelLang();
  document.documentElement.lang = lang;
  for (const [id, key] of Object.entries(LABELLED)) {
    const node = $(id);
    if (!node) continue;
    node.textContent = L(key);
    node.lang = lang;
  }
  for (const node of document.querySelectorAll('[data-l]')) {
    node.textContent = L(node.dataset.l);
    node.lang = lang;
  }
  for (const node of document.querySelectorAll('[data-l-label]')) node.setAttribute('aria-label', L(node.dataset.lLabel));
  if (app.role) applyRole();
  if (app.table) sheetTitles();
}

function sheetTitles() {
  $('sheet-a-title').textContent = L(app.sheets.twoSheets ? 'sheet_a_blind' : 'game_record');
  $('sheet-b-title').textContent = L(app.sheets.twoSheets ? 'sheet_b_sighted' : 'second_sheet');
}

// The table's words (`/words.json`, no token needed): the page's labels in its language from
// the start, the login included.
async function loadWords() {
  const r = await fetch('/words.json');
  app.words = await r.json();
  pageLabels();
  if (!conn) setConnection(L('not_connected'));
}

// ---------- move entry and actions ----------

let previewTimer = null;
let previewSeq = 0;
function preview() {
  clearTimeout(previewTimer);
  const text = $('move-text').value.trim();
  $('move-error').textContent = '';
  if (!text) { $('preview').textContent = ''; return; }
  if (isCommand(text)) { $('preview').textContent = L('command_preview'); return; }
  if (tooLong(text)) { $('preview').textContent = ''; $('move-error').textContent = tooLongText(text); return; }
  previewTimer = setTimeout(async () => {
    const seq = ++previewSeq;
    const r = await ask('parse ' + text);
    if (seq !== previewSeq) return;
    const ok = okText(r);
    if (ok === null) { $('preview').textContent = L('not_yet_move', { why: refusalWhy(r) }); return; }
    const [uci, san, ...spoken] = ok.split(' ');
    $('preview').textContent = L('understood', { san, uci, spoken: spoken.join(' ') });
    announce($('preview').textContent, false, labelLang(), 'reply');
  }, 250);
}

// The daemon reads lines of at most 512 bytes; a longer entry (a paste gone wrong) is refused
// here with a message and never sent.
function tooLong(text) {
  return new TextEncoder().encode('move ' + text).length > MAX_LINE_BYTES;
}

function tooLongText(text) {
  const bytes = new TextEncoder().encode(text).length;
  return L('refused', { code: L('code_too_long'), why: L('too_long', { bytes, max: MAX_LINE_BYTES - 5 }) });
}

async function sendMove(e) {
  e.preventDefault();
  const text = $('move-text').value.trim();
  if (!text) { showError(`error syntax ${L('type_move_first')}`); return; }
  clearTimeout(previewTimer);
  previewSeq++;
  if (tooLong(text)) {
    const why = tooLongText(text);
    $('move-error').textContent = why;
    announce(why, true, labelLang(), 'reply');
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
  $('preview').replaceChildren(...LN('played', { move: inLang(ok.split(' ')[1] || '', tableLang()) }));
  $('move-text').value = '';
}

// One's own last move withdrawn (`undo`, D.2.8) with one key: a player's only when the last
// move is his; the assistant and the arbiter withdraw the last move.
async function undoOwn() {
  const last = app.last;
  if ((app.role === 'white' || app.role === 'black') && (!last || last.color !== app.role)) {
    const text = L('refused', { code: codeWords('state'), why: L('not_yours') });
    $('action-result').textContent = text;
    announce(text, true, labelLang(), 'reply');
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
  announce(text, ok === null, labelLang(), 'reply');
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
    $('export-result').textContent = L('export_unreadable', { error: e.message });
    return;
  }
  const ext = { pgn: 'pgn', iccf: 'txt', braille: 'txt', brf: 'brf' }[format];
  const name = `${app.table}.${format === 'braille' ? 'braille.txt' : format === 'iccf' ? 'iccf.txt' : ext}`;
  download(name, text, format === 'brf' ? 'application/octet-stream' : 'text/plain;charset=utf-8');
  $('export-result').textContent = L('saved_chars', { name, n: text.length });
}

async function exportAudio() {
  $('export-result').textContent = L('fetching_audio');
  try {
    const r = await fetch('/audio/' + encodeURIComponent(app.table), { headers: { Authorization: 'Bearer ' + app.token } });
    if (!r.ok) { $('export-result').textContent = L('no_audio', { why: (await r.text()).trim() }); return; }
    const blob = await r.blob();
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = app.table + '.wav';
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    $('export-result').textContent = L('saved_bytes', { name: `${app.table}.wav`, n: blob.size });
  } catch (e) {
    $('export-result').textContent = L('audio_failed', { error: e.message });
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
    setConnection(L('logged_out'));
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
    announce(L(app.flipped ? 'seen_black' : 'seen_white'));
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
    $('mm-result').textContent = L('mm_confirmed');
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
    if (!moves) { $('sheet-result').textContent = L('type_sheet_first'); return; }
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
    const text = ok === null ? refusal(r)
      : L('clock_adjusted', { color: colorName(color), delta: secs, left: durationWords(seconds(ok.slice(color.length + 1))) });
    $('arbiter-result').textContent = text;
    announce(text, ok === null, labelLang(), 'reply');
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
  // The labels first (the login's own texts in the table's language), then the login.
  loadWords().catch(() => {}).finally(() => {
    if (saved) { $('token').value = saved; login(saved); }
    else $('token').focus();
  });
}

wire();

