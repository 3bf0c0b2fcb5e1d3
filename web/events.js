// annabella's table page: what the daemon says — the view, the refreshes and each event.
// Plain script, no build step; loaded in order by index.html (words, chess, events, render, app),
// sharing one global scope.
'use strict';

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
  const peg = { name: L('peg_board'), link: m[1], occupied: occupiedSquares(m[2]), pieces: parseFen(m[3]) };
  boxes.push(physicalBoard(peg, game, summary));
  if (m[4] !== 'virtual') {
    const pieces = parseFen(m[6]);
    const occupied = new Set(Object.keys(pieces));
    boxes.push(physicalBoard({ name: L('opponent_board'), link: m[5], occupied, pieces }, game, summary));
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
    if (!has) return L('sq_empty', { square: sq });
    if (p) return L('sq_has', { square: sq, piece: pieceWords(p) });
    return L('sq_peg', { square: sq });
  });
  const text = differ.length
    ? Ln('board_differs', differ.length, { board: b.name, link: linkWords(b.link), squares: words.join(', ') })
    : L('board_agrees', { board: b.name, link: linkWords(b.link) });
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
      if (hears(app.hearing, e) && !saidAgain(e.id)) {
        announce(e.text, e.urgent, lang, 'said');
      }
      break;
    }
    case 'move':
      app.settingUp = false;
      app.last = {
        uci: e.uci, san_local: e.san_local || e.san, words: e.words || '', number: e.number, color: e.color,
      };
      app.step = null;
      app.past = null;
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
      const taken = e.retracted.length ? e.retracted.map(uciWords).join('; ') : L('nothing');
      const clocks = { white: durationWords(seconds(e.white)), black: durationWords(seconds(e.black)) };
      $('mm-result').textContent = L('takeback_done', { plies: Ln('half_moves', Number(e.plies)), taken, ...clocks });
      $('mm-clocks').textContent = L('clocks_put_back', clocks);
      announce($('mm-result').textContent);
      app.last = null;
      refreshAll();
      break;
    }
    case 'recorded':
      $('sheet-result').textContent = L('recorded');
      break;
    case 'undo': case 'begin': case 'restored': case 'lagged':
      // A new game's clocks wait until the boards are set up: their stop and start then are
      // the table's, not the arbiter's, and the guidance says what to do.
      if (e.event === 'begin') app.settingUp = true;
      refreshClock(); refreshSheets();
      if (!app.hasView) refreshAll();
      break;
    case 'end':
      // Shown, not read: the daemon's own words for the end (a `say` to everyone) are read
      // in their turn, after the move that ended the game.
      refreshClock(); refreshSheets();
      if (!app.hasView) refreshAll();
      $('action-result').textContent = e.description
        ? L('game_over_why', { result: resultWords(e.result), why: e.description })
        : L('game_over_result', { result: resultWords(e.result) });
      break;
    case 'draw-offer':
      if (!app.hasView) refreshStatus();
      refreshClock();
      $('action-result').textContent = L('draw_offered', { color: colorName(e.color) });
      break;
    case 'wrong-claim':
      if (!app.hasView) refreshStatus();
      refreshClock();
      $('action-result').textContent = L('wrong_claim', { color: colorName(e.color), why: e.why });
      break;
    case 'clock-adjusted': case 'clock': case 'penalty': case 'resumed': case 'stalled':
      refreshClock();
      if (e.event === 'clock' && app.settingUp) {
        // Held for the set-up (stopped), or started once it is done: no arbiter's act.
        if (e.running) app.settingUp = false;
        break;
      }
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
      if (e.what === 'promotion-pending' && $('promotion').hidden) showPromotion(e.uci);
      if (e.what === 'mismatch' || e.what === 'illegal') app.guide[e.board] = e.corrections.join('; ');
      if (e.what === 'in-sync') app.guide[e.board] = '';
      // A replication ends "owes the last move": the status is asked again for it too.
      if (!app.hasView) refreshStatus();
      break;
    }
    case 'result-offered':
      $('arbiter-result').textContent =
        L('result_shown', { board: L(e.board === 'peg' ? 'peg_board' : 'opponent_board'), result: resultWords(e.result), code: e.result });
      break;
    case 'journal-error':
      $('action-result').textContent = L('action_failed', { message: e.message });
      break;
    case 'shutdown':
      setConnection(L('daemon_stopping'));
      break;
    default:
      break;
  }
}

function capital(w) {
  return w ? w[0].toUpperCase() + w.slice(1) : w;
}

function resultWords(r) {
  const key = { '1-0': 'result_white', '0-1': 'result_black', '1/2-1/2': 'result_draw', '*': 'result_open' }[r];
  return key ? L(key) : r;
}

// A move given as UCI ("e7e5") in the table's words: "from Eva sieben to Eva fünf".
function uciWords(uci) {
  const m = /^([a-h][1-8])([a-h][1-8])([qrbn])?$/.exec(uci || '');
  if (!m || !app.words) return uci;
  const squares = { from: squareWords(m[1]), to: squareWords(m[2]) };
  return m[3] ? L('uci_promo', { ...squares, piece: app.words.pieces[ROLE_KEYS[m[3]]] }) : L('uci_words', squares);
}

// A reply of the daemon in words for the page's result lines ("withdrawn e7e5" is no sentence).
function replyWords(ok) {
  let m = /^withdrawn (\S+)$/.exec(ok);
  if (m) return L('withdrawn', { move: uciWords(m[1]) });
  m = /^back to (\d+) half-moves; white (\S+) black (\S+)$/.exec(ok);
  if (m) return L('taken_back', { plies: Ln('half_moves', Number(m[1])), white: durationWords(seconds(m[2])), black: durationWords(seconds(m[3])) });
  m = /^(white|black) (-?\d+:\d\d:\d\d(?:\.\d+)?)$/.exec(ok);
  if (m) return L('clock_of', { color: colorName(m[1]), time: durationWords(seconds(m[2])) });
  m = /^white (\S+) black (\S+) moves (\d+) running (\S+)$/.exec(ok);
  if (m) return L('clocks_told', { white: durationWords(seconds(m[1])), black: durationWords(seconds(m[2])) });
  if (/^result (\S+)$/.test(ok)) return L('result_is', { result: resultWords(ok.split(' ')[1]) });
  return otherReplyWords(ok);
}

// The rest of the replies the page's buttons get (docs/control-protocol.md), in words; a reply
// it does not know is the daemon's own line, shown as it is.
function otherReplyWords(ok) {
  let m = /^(white|black) offers a draw$/.exec(ok);
  if (m) return L('draw_offered', { color: colorName(m[1]) });
  if (ok === 'draw agreed') return L('draw_agreed');
  m = /^(white|black) resigns$/.exec(ok);
  if (m) return L('resigns', { color: colorName(m[1]) });
  m = /^lang (\S+)$/.exec(ok);
  if (m) return L('lang_set', { code: m[1] });
  if (ok === 'clock paused') return L('clocks_paused');
  if (ok === 'clock running') return L('clocks_again');
  if (ok === 'the proposed takeback is dropped') return L('mm_rejected');
  if (/^new game /.test(ok)) return L('new_game_started');
  m = /^(white|black) gets the penalty time; (\S+) left$/.exec(ok);
  if (m) return L('penalty_time', { color: colorName(m[1]), left: durationWords(seconds(m[2])) });
  m = /^second illegal move by (white|black): the game is over$/.exec(ok);
  if (m) return L('second_illegal', { color: colorName(m[1]) });
  m = /^(white|black|event|site|round) (.+)$/.exec(ok);
  if (m) return L('tag_set', { tag: L({ white: 'white', black: 'black', event: 'tag_event', site: 'tag_site', round: 'tag_round' }[m[1]]), text: m[2] });
  m = /^sheet ([ab]): (\d+) half-moves; (.*)$/.exec(ok);
  if (m) return `${L('sheet_recorded', { side: m[1].toUpperCase(), plies: Ln('half_moves', Number(m[2])) })} ${verdictWords(m[3])}`;
  m = /^sheet ([ab]) (confirmed|disputed); (.*)$/.exec(ok);
  if (m) return `${L(`sheet_${m[2]}`, { side: m[1].toUpperCase() })} ${verdictWords(m[3])}`;
  return ok ? capital(ok) + (/[.!?]$/.test(ok) ? '' : '.') : L('done');
}

// The comparison of the sheets in a reply: agree, one lags, or they differ.
function verdictWords(v) {
  if (v === 'the sheets agree') return L('sheets_agree');
  let m = /^sheet ([ab]) lags by (\d+) half-moves/.exec(v);
  if (m) return L('sheet_lags_by', { side: m[1].toUpperCase(), plies: Ln('half_moves', Number(m[2])) });
  m = /^the sheets differ after (\d+) half-moves/.exec(v);
  if (m) return L('sheets_differ_after', { plies: Ln('half_moves', Number(m[1])) });
  return v;
}

function arbiterEvent(e) {
  if (e.event === 'clock-adjusted') {
    const secs = e.delta_ms / 1000;
    return L('clock_adjusted', { color: colorName(e.color), delta: `${secs >= 0 ? '+' : ''}${secs}`, left: durationWords(seconds(e.remaining)) });
  }
  if (e.event === 'clock') return L(e.running ? 'clocks_again' : 'clocks_paused');
  if (e.event === 'penalty') {
    const key = e.count === 1 ? 'penalty_1' : e.count === 2 ? 'penalty_2' : 'penalty_n';
    return L(key, { color: colorName(e.color), n: e.count });
  }
  if (e.event === 'stalled') return L('stalled', { time: durationWords(e.stalled_ms / 1000) });
  return L('restart', { time: durationWords(e.downtime_ms / 1000), how: e.measured_by.replace(/-/g, ' '), charged: durationWords(e.charged_ms / 1000) });
}

function showLagging(side, missing) {
  $('lagging').hidden = false;
  $('lagging').dataset.side = side;
  $('lagging-text').textContent = missing
    ? L('sheet_lags', { side: side.toUpperCase(), moves: missing.join(', ') })
    : L('sheet_lags_behind', { side: side.toUpperCase() });
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
    $('sheet-result').textContent = L('sheets_agree');
    hideKeepingFocus('lagging', 'sheets-title');
  } else if (e.verdict === 'rejected') {
    app.resolution = null;
    $('mm-result').textContent = L('mm_rejected');
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
  $('mm-state').textContent = L('mm_open_takeback');
  $('mm-what').textContent = L('sheets_differ');
  const detail = r.a !== undefined
    ? ` ${L('proposal_detail', { a: r.a, b: r.b, white: durationWords(seconds(r.white)), black: durationWords(seconds(r.black)) })}`
    : '';
  $('mm-proposal').textContent = L('proposal_takeback', { plies: Ln('half_moves', Number(r.plies)) }) + detail;
  $('mm-sheets').textContent = $('sheet-diff').textContent || L('see_below');
  if (!app.guide.peg && !app.guide.normal) $('mm-corrections').textContent = L('mm_nothing');
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

