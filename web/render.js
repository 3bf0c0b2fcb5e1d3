// annabella's table page: drawing the board, the clocks, the sheets and the procedure, and the board by keyboard.
// Plain script, no build step; loaded in order by index.html (words, chess, events, render, app),
// sharing one global scope.
'use strict';

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
  // The picture may show a past position while [ and ] step back; the squares' grid, which a
  // screen reader reads and the keys work on, always holds the game as it stands.
  const squares = parseFen(app.past ? app.past.fen : app.fen);
  const svg = $('board-svg');
  svg.replaceChildren();
  const { ranks, files } = order();
  const last = app.past ? null : /^([a-h][1-8])([a-h][1-8])/.exec((app.last && app.last.uci) || '');
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
  svg.setAttribute('data-shown-fen', app.past ? app.past.fen : app.fen);
  const caption = $('board-caption');
  caption.replaceChildren(`${L(app.flipped ? 'seen_black' : 'seen_white')} `);
  if (app.past) caption.append(...LN('picture_after', { move: inLang(app.past.text, tableLang()) }));
  else if (app.last) caption.append(...LN('last_move_framed', { move: inLang(lastMoveText(), tableLang()) }));
  else caption.append(L('no_move_yet'));
  updateGridLabels(parseFen(app.fen));
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
  const offerBy = st['draw-offer'];
  const offer = offerBy && offerBy !== 'none'
    ? inLang(' ' + L('draw_offered', { color: (app.words && app.words[offerBy]) || capital(offerBy) }), labelLang()) : '';
  if (app.end || (st.result && st.result !== '*')) {
    // After the end the status says why, not whose turn it would be.
    // In the page's labels and the table's words: "Partie beendet — Turm Anna acht Matt.
    // Weiß gewinnt."; without the daemon's words, the result.
    if (app.end && app.end.words) line.replaceChildren(inLang(L('game_over'), labelLang()), ' — ', inLang(app.end.words, tableLang()));
    else line.replaceChildren(inLang(L('game_over_result', { result: resultWords(app.end ? app.end.result : st.result) }), labelLang()));
  } else {
    const color = st.turn && app.words ? app.words[st.turn] : st.turn;
    const turn = st.turn ? L('to_move', { color }) : L('waiting_table');
    const ply = Number(st.ply);
    const move = Number.isFinite(ply) ? ` (${Math.floor(ply / 2) + 1})` : '';
    line.replaceChildren(inLang(`${L('in_progress')}. ${turn}${move}.`, labelLang()), offer);
  }
  const list = $('boards-state');
  list.replaceChildren();
  let differs = null;
  for (const board of ['peg', 'normal']) {
    const b = st[board];
    if (!b) continue;
    const li = document.createElement('li');
    const name = L(board === 'peg' ? 'peg_board_blind' : 'opponent_board');
    if (b.virtual) li.textContent = L('board_virtual', { board: name });
    else {
      const key = { 'in-sync': 'sync_in', differs: 'sync_differs', 'owes-move': 'sync_owes' }[b.sync];
      li.textContent = L('board_line', { board: name, link: linkWords(b.link), sync: key ? L(key) : b.sync });
      if (app.guide[board] && b.sync !== 'in-sync') li.append(' ', ...LN('needs', { guide: inLang(app.guide[board], tableLang()) }));
      if (b.sync === 'differs') differs = board;
    }
    list.append(li);
  }
  renderMismatch(differs);
}

function renderMismatch(board) {
  const panel = $('mismatch');
  if (app.resolution) {
    $('mm-state').textContent = L('mm_open_takeback');
    delete panel.dataset.resolved;
    return;
  }
  if (!board && !app.procedureOpen) {
    if (!panel.hidden && !panel.dataset.resolved) {
      panel.dataset.resolved = 'yes';
      $('mm-state').textContent = L('mm_resolved');
      $('mm-corrections').textContent = L('mm_nothing');
      $('mm-proposal').textContent = L('mm_none_needed');
      // The drawing is asked again, so it shows the boards as they are now.
      refreshBoards();
    }
    return;
  }
  $('mm-state').textContent = L(board ? 'mm_open_board' : 'mm_open_sheets');
  delete panel.dataset.resolved;
  // A new mismatch starts a new procedure; an outcome already shown stays until then.
  if (panel.hidden) $('mm-result').textContent = '';
  const opening = panel.hidden;
  panel.hidden = false;
  if (opening) refreshBoards();
  if (!board) return;
  const name = L(board === 'peg' ? 'the_peg_board' : 'the_opponent_board');
  $('mm-what').textContent = L('board_differs_after', { board: name, plies: Ln('half_moves', Number(app.status.ply)) });
  const guide = app.guide[board];
  if (guide) {
    $('mm-corrections').replaceChildren(inLang(guide, tableLang()));
    $('mm-proposal').replaceChildren(...LN('record_stands_correct', { board: name, guide: inLang(guide, tableLang()) }));
  } else {
    // Without the board's guide yet, the drawing below names the squares that differ.
    $('mm-corrections').textContent = L('squares_marked');
    $('mm-proposal').textContent = L('record_stands_guided');
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
    words.lang = app.words && app.words.time ? tableLang() : 'en';
    const mark = box.querySelector('.running-mark');
    mark.textContent = running ? '◀ ' + L('running') : '';
    mark.lang = labelLang();
    box.classList.toggle('running', running);
    box.classList.toggle('flag', left <= 0);
  }
  $('clock-moves').replaceChildren(`${L('moves_played', { moves: Ln('moves_n', c.moves) })} `, c.running === 'none' ? inLang(L('clocks_stopped'), labelLang()) : '');
}

function clockWords() {
  const c = app.clock;
  if (!c) return L('no_clock_yet');
  const gone = (performance.now() - c.at) / 1000;
  const left = (color) => durationWords(c.running === color ? c[color] - gone : c[color]);
  const running = L({ none: 'clocks_stopped_lower', white: 'white_running', black: 'black_running' }[c.running] || 'running');
  return L('clocks_line', { white: left('white'), black: left('black'), moves: Ln('moves_n', c.moves), running });
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
    p.textContent = L('one_record_note');
    $('sheet-b').replaceChildren(p);
  }
  const diffText = first >= 0
    ? L('first_diff', { n: Math.floor(first / 2) + 1, color: colorName(first % 2 ? 'black' : 'white'), a: a[first] ?? L('nothing'), b: b[first] ?? L('nothing') })
    : b ? L('sheets_agree') : '';
  $('sheet-diff').textContent = diffText;
  $('mm-sheets').textContent = diffText || L('one_record');
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
  for (const [h, own] of [[L('sheet_no'), false], [app.words.white, true], [app.words.black, true]]) {
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
    td.textContent = L('no_moves_yet');
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
        td.setAttribute('aria-label', L('first_diff_cell', { move: moves[j] ?? L('nothing') }));
      }
    }
  }
  return t;
}

function addTranscript(who, text, lang) {
  const li = document.createElement('li');
  const w = document.createElement('span');
  w.className = 'who';
  const key = { blind: 'to_blind', opponent: 'to_opponent', arbiter: 'to_arbiter', all: 'to_everyone' }[who];
  w.textContent = key ? L(key) : who;
  w.lang = labelLang();
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
      $('preview').textContent = L('promotion_chosen', { piece: app.words.pieces[role] });
    });
    box.append(b);
  }
  const title = L('promotion_pending', { square: squareWords(uci.slice(2, 4)) });
  $('promotion-title').replaceChildren(inLang(title, labelLang()));
  $('promotion').hidden = false;
  // Whoever may choose is told that a promotion waits (once, as it appears).
  if (app.role !== 'observer') announce(title, false, labelLang(), 'note');
}

function showError(reply) {
  const text = refusal(reply);
  $('move-error').textContent = text;
  announce(text, true, labelLang(), 'reply');
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
  if (!kind) { announce(L('no_letter', { letter })); return; }
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
  announce(L(white ? 'white_no_piece' : 'black_no_piece'));
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
  else if (key === 'C') announce(clockWords(), false, labelLang(), 'reply');
  else if (key === 'S') announce($('status-line').textContent + ' ' + $('boards-state').textContent, false, labelLang(), 'reply');
  else if (key === 'M') { const a = commandAnswer('m ' + sq); announce(a.text, false, a.lang, 'reply'); }
  else if (key === 'A') { const a = commandAnswer('a ' + sq); announce(a.text, false, a.lang, 'reply'); }
  else if (key === '?') $('keys-dialog').showModal();
  else if (key === 'u') undoOwn();
  else if (key === 'Escape') { app.from = null; updateGridLabels(parseFen(app.fen)); announce(L('cleared')); }
  else if (key === 'Enter' || key === ' ') pickSquare(sq);
  else handled = false;
  if (!handled) return;
  e.preventDefault();
  const next = FILES[f] + r;
  if (next !== sq) focusSquare(next);
}

function announceLastMove() {
  if (app.last) announce(lastMoveText(), false, tableLang(), 'reply');
  else announce(L('no_move_yet'), false, labelLang(), 'reply');
}

