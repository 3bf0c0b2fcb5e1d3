// annabella's table page: the position's moves and attacks, and the command line in the move entry.
// Plain script, no build step; loaded in order by index.html (words, chess, events, render, app),
// sharing one global scope.
'use strict';

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


// ---------- the command line ----------

// A command in the move entry: a single letter, alone or with one argument, or anything
// starting with "/". No move in any notation the daemon reads is a lone letter (SAN, ICCF and
// UCI moves name a square; spoken moves are whole words), so commands never hide a move.
const COMMAND = /^\/?\s*([a-z\[\]?])(?:\s+(\S+))?$/i;

function isCommand(text) {
  const m = COMMAND.exec(text.trim());
  return Boolean(m) && (text.trim().startsWith('/') || 'cltipsmahx[]?'.includes(m[1].toLowerCase()));
}

// What a command answers: { text, lang } — the table's language where the answer is its words,
// the labels' where it is the page's own (the command letters stay: they are what one types).
function commandAnswer(text) {
  const own = labelLang();
  const notCommand = { text: `${L('not_command', { text })} ${L('command_help')}`, lang: own };
  const m = COMMAND.exec(text.trim());
  if (!m) return notCommand;
  const cmd = m[1];
  const arg = m[2] || '';
  const lang = tableLang();
  const squares = parseFen(app.fen);
  const v = app.view;
  switch (cmd.toLowerCase() === 'p' || cmd.toLowerCase() === 's' ? cmd.toLowerCase() : cmd) {
    case 'c': return { text: clockWords(), lang: own };
    case 'l': return app.last ? { text: lastMoveText(), lang } : { text: L('no_move_yet'), lang: own };
    case 't': {
      if (app.end || (app.status.result && app.status.result !== '*')) return { text: $('status-line').textContent, lang: own };
      const turn = colorName(position(app.fen).turn === 'w' ? 'white' : 'black');
      return { text: `${L('to_move', { color: turn })}.`, lang: own };
    }
    case 'i': {
      const who = (name) => name || L('info_unnamed');
      const parts = [
        L('info_table', { table: app.table }),
        L('info_players', { white: who(v && v.white), black: who(v && v.black) }),
        L('info_time', { tc: timeControlWords(v && v.time_control) }),
        v && v.peg_side ? L('info_blind', { color: colorName(v.peg_side) }) : '',
        Ln('info_played', Number(app.status.ply) || 0),
      ];
      return { text: parts.filter(Boolean).join(' '), lang: own };
    }
    case 'p': {
      if (!arg) return { text: L('p_needs'), lang: own };
      const colour = arg.toLowerCase();
      if (colour === 'white' || colour === app.words.white.toLowerCase()) return { text: listPieces(true), lang };
      if (colour === 'black' || colour === app.words.black.toLowerCase()) return { text: listPieces(false), lang };
      const kind = pieceKind(arg[0]);
      if (!kind || arg.length > 1) return { text: L('no_letter', { letter: arg }), lang: own };
      return { text: listPieces(arg[0] === arg[0].toUpperCase(), kind), lang };
    }
    case 's': {
      if (/^[a-h]$/.test(arg)) return { text: `${app.words.files[FILES.indexOf(arg)]}: ${readLine(fileCells(arg))}`, lang };
      if (/^[1-8]$/.test(arg)) return { text: `${app.words.ranks[Number(arg) - 1]}: ${readLine(rankCells(arg))}`, lang };
      return { text: L('s_needs'), lang: own };
    }
    case 'm': case 'M': {
      if (!/^[a-h][1-8]$/.test(arg)) return { text: L('m_needs'), lang: own };
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
      if (!/^[a-h][1-8]$/.test(arg)) return { text: L('a_needs'), lang: own };
      const side = (c) => attackersOf(squares, arg, c).map((sq) => `${pieceWords(squares[sq])} ${squareWords(sq)}`).join(', ') || '–';
      return { text: `${squareWords(arg)}. ${app.words.white}: ${side('w')}. ${app.words.black}: ${side('b')}.`, lang };
    }
    case 'x': return { text: capturedWords(app.fen), lang };
    case '[': case ']': return stepThroughGame(cmd === '[' ? -1 : 1);
    case 'h': case '?': return { text: L('command_help'), lang: own };
    default: return notCommand;
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
  if (!moves.length) return { text: L('no_move_yet'), lang: labelLang() };
  let at = app.step === null ? moves.length : app.step;
  at = Math.max(0, Math.min(moves.length - 1, at + delta));
  if (app.step === null && delta > 0) at = moves.length - 1;
  app.step = at;
  const number = Math.floor(at / 2) + 1;
  const text = `${number}${at % 2 ? '…' : '.'} ${moves[at]}`;
  showPosition(at, moves.length, text);
  return { text, lang: tableLang() };
}

// The picture shows the position after half-move `at` (the daemon's `board N`); after the
// last one, the game as it stands.
async function showPosition(at, plies, text) {
  if (at === plies - 1) {
    app.past = null;
    renderBoard();
    return;
  }
  const fen = okText(await ask(`board ${at + 1}`));
  // Another step, or a move, may have come meanwhile.
  if (!fen || app.step !== at) return;
  app.past = { fen, text };
  renderBoard();
}

function pickSquare(sq) {
  if (!app.from) {
    app.from = sq;
    updateGridLabels(parseFen(app.fen));
    announce(L('from_square', { square: squareWords(sq) }), false, labelLang(), 'reply');
    return;
  }
  const text = app.from + sq;
  app.from = null;
  updateGridLabels(parseFen(app.fen));
  $('move-text').value = text;
  preview();
  $('move-text').focus();
}

