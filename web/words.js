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

// `lang`: the phrase's language (the table's for the daemon's words, the labels' language
// for the page's own: `labelLang()`). `kind`: `said` for a daemon utterance (see `saidAgain`); `reply` for the answer to a key or command, which replaces an earlier answer not yet
// read (the user asked something new); `note` for the page's own notices.
function announce(text, urgent = false, lang = labelLang(), kind = 'note') {
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
  board: 'Board',
  clocks: 'Clocks',
  move_entry: 'Move entry',
  game: 'Game',
  physical_boards: 'Physical boards',
  scoresheets: 'Scoresheets',
  said: 'What was said',
  arbiter: 'Arbiter',
  export: 'Export',
  flip: 'Flip board',
  keys: 'Keyboard commands',
  send_move: 'Send move',
  tell_clock: 'Clock (tell the blind player)',
  offer_draw: 'Offer draw',
  claim_draw: 'Claim draw…',
  undo: 'Undo slip of the tongue (D.2.8)',
  resign: 'Resign…',
  log_out: 'Log out',
  tables: 'Tables',
  claim_question: 'Claim a draw?',
  claim_explain: 'A claim that is wrong gives the opponent time (FIDE 6.12).',
  claim_yes: 'Yes, claim the draw',
  keep_playing: 'No, keep playing',
  resign_question: 'Resign the game?',
  resign_yes: 'Yes, resign',
  to_move: '{color} to move',
  game_over: 'Game over',
  in_progress: 'Game in progress',
  running: 'running',
  connection_lost: 'Connection to the daemon lost; reconnecting.',
  reconnected: 'Reconnected.',
  promotion_pending: 'Promotion pending on {square}: choose the new piece.',
  undo_own: 'Undo my last move (Alt+U)',
  new_game: 'New game',
  result: 'Enter the result',
  tag: 'Set a header tag',
  read_out: 'Read out',
  hear_opponent: 'the opponent\'s words (and what is said to everyone)',
  hear_blind: 'the blind player\'s words (and what is said to everyone)',
  hear_moves: 'both sides\' moves and the opponent\'s words (and what is said to everyone)',
  hear_all: 'everything said at the table',
  draw_offered: '{color} offers a draw.',
  clocks_stopped: 'Clocks stopped.',
  code_syntax: 'not understood',
  code_auth: 'not logged in',
  code_forbidden: 'not allowed',
  code_move: 'not a legal move',
  code_state: 'not possible now',
  code_rate: 'too many requests',
  code_too_long: 'too long',
  refused: 'Refused ({code}): {why}',
  login_failed: 'Login failed. {why}',
  enter_token: 'Enter a token.',
  words_failed: 'The page could not load the chess words from the daemon: {error}',
  no_room: 'The daemon has no room for this page right now: {reason}. Trying again by itself.',
  waiting_room: 'Waiting for room on the daemon…',
  connected_as: 'Connected as {role}.',
  role_white: 'white',
  role_black: 'black',
  role_observer: 'observer',
  role_arbiter: 'arbiter',
  closed_relogin: 'The connection to the daemon is closed. Log in again to reconnect.',
  closed: 'The connection to the daemon is closed.',
  not_connected: 'Not connected.',
  no_room_retry: 'The daemon has no room for this page right now: {reason}. Reconnecting (attempt {n})…',
  lost_retry: 'The connection to the daemon was lost; reconnecting (attempt {n})…',
  reconnected_but: 'Reconnected, but {why}',
  no_tables: 'This token may see no table.',
  open_table: 'Open {table}',
  table_title: 'Table {table} (you are {role})',
  sheet_a_blind: 'Sheet A (blind player)',
  sheet_b_sighted: 'Sheet B (sighted player)',
  game_record: 'Game record',
  second_sheet: 'Second scoresheet',
  command_preview: 'A command: Enter runs it.',
  not_yet_move: 'Not yet a move: {why}',
  understood: 'Understood: {san} ({uci}), “{spoken}”. Press Enter to send.',
  too_long: 'the entry has {bytes} bytes; a move or command is at most {max}. Nothing was sent.',
  played: 'Played {move}.',
  not_yours: 'the last move is not yours.',
  saved_chars: 'Saved {name} ({n} characters).',
  saved_bytes: 'Saved {name} ({n} bytes).',
  no_audio: 'No audio record: {why}',
  audio_failed: 'The audio record could not be fetched: {error}',
  logged_out: 'Logged out.',
  seen_white: 'Seen from White.',
  seen_black: 'Seen from Black.',
  picture_after: 'The picture shows the position after {move}; ] steps on to the game as it stands. The squares below are the game as it stands.',
  last_move_framed: 'Last move: {move} (framed).',
  no_move_yet: 'No move yet.',
  no_moves_yet: 'No moves yet.',
  waiting_table: 'Waiting for the table',
  mm_confirmed: 'Confirmed: the game stands; the board is being corrected as guided.',
  clock_adjusted: 'Clock adjusted: {color} {delta} s, {left} left.',
  command_help: 'Commands: c clocks; l last move; t whose turn; i game information; p and a piece letter: those pieces (p N white knights, p n black knights, p white or p black all of a colour); s and a file or rank: scan it (s e, s 4); m and a square: its legal moves (m g1); a and a square: who attacks and defends it (a e4); x the pieces captured; [ and ]: step back and forward through the game; h this list.',
  not_command: 'Not a command: {text}.',
  info_table: 'Table {table}.',
  info_players: 'White: {white}. Black: {black}.',
  info_unnamed: 'not named',
  info_time: 'Time control: {tc}.',
  info_blind: 'The blind player plays {color}.',
  info_played: '{n} half-moves played.',
  info_played_one: '1 half-move played.',
  tc_unknown: 'unknown',
  tc_moves_in: '{moves} in {time}',
  tc_plus: '{time} plus {n} seconds a move',
  tc_plus_one: '{time} plus 1 second a move',
  tc_then: 'then',
  moves_n: '{n} moves',
  moves_n_one: '1 move',
  half_moves: '{n} half-moves',
  half_moves_one: '1 half-move',
  p_needs: 'p needs a piece letter or a colour: p N, p n, p white.',
  no_letter: 'No piece has the letter {letter}.',
  s_needs: 's needs a file a to h or a rank 1 to 8: s e, s 4.',
  m_needs: 'm needs a square: m g1.',
  a_needs: 'a needs a square: a e4.',
  from_square: 'From {square}',
  takeback_done: 'Takeback carried out: back to {plies}; taken back: {taken}. Clocks: White {white}, Black {black}.',
  clocks_put_back: 'The clocks were put back: White {white}, Black {black}.',
  wrong_claim: 'Wrong draw claim by {color}: {why}',
  result_shown: 'Result shown with the DGT kings ({board}): {result}. The arbiter confirms it with: result {code}',
  action_failed: 'The table could not record the last action ({message}); nothing changed.',
  daemon_stopping: 'The daemon is stopping; the page will reconnect when it is back.',
  result_white: 'White wins',
  result_black: 'Black wins',
  result_draw: 'draw',
  result_open: 'game in progress',
  uci_words: 'from {from} to {to}',
  uci_promo: 'from {from} to {to}, becoming {piece}',
  withdrawn: 'Move withdrawn ({move}); the clocks are back to their readings before it.',
  taken_back: 'Taken back to {plies}; clocks White {white}, Black {black}.',
  clock_of: '{color}\'s clock: {time}.',
  clocks_told: 'The clocks were told to the blind player: White {white}, Black {black}.',
  result_is: 'Result: {result}.',
  done: 'Done.',
  clocks_again: 'Clocks running again.',
  clocks_paused: 'Clocks paused by the arbiter.',
  penalty_1: 'Penalty: {color}\'s first illegal move.',
  penalty_2: 'Penalty: {color}\'s second illegal move.',
  penalty_n: 'Penalty: {color}\'s illegal move number {n}.',
  stalled: 'The daemon did not run for {time}; moves sent meanwhile count as made when it stopped.',
  restart: 'After the restart: downtime {time} ({how}), charged {charged}.',
  sheet_lags: 'Sheet {side} lags; missing: {moves}.',
  sheet_lags_behind: 'Sheet {side} lags behind the other sheet.',
  sheets_agree: 'The scoresheets agree.',
  mm_rejected: 'The arbiter rejected the proposed takeback; the game stands.',
  mm_open_takeback: 'Open: the arbiter decides on the proposed takeback.',
  mm_resolved: 'Resolved: the boards agree with the game.',
  mm_nothing: 'nothing; the boards agree with the game.',
  mm_none_needed: 'none needed now.',
  mm_open_board: 'Open: a board differs from the game.',
  mm_open_sheets: 'Open: the scoresheets are being compared.',
  token_spaces: 'A token has no spaces or line breaks; check what was pasted.',
  command_label: 'Command (c clocks, l last move, h all commands)',
  move_label: 'Move, in any notation (SAN, 5254, e2e4, spoken words), or a command (h lists them)',
  type_move_first: 'type a move first, e.g. e4, 5254 or Springer Felix drei; or h for the commands',
  export_unreadable: 'The daemon\'s export could not be read: {error}',
  type_sheet_first: 'Type the sheet\'s moves first, e.g. 1. e4 e5 2. Sf3',
  peg_board: 'Peg board',
  peg_board_blind: 'Peg board (blind player)',
  opponent_board: 'Opponent\'s board',
  sq_empty: '{square} is empty',
  sq_has: '{square} has {piece}',
  sq_peg: '{square} has a peg',
  board_differs: '{board} ({link}): {n} squares differ from the game: {squares}.',
  board_differs_one: '{board} ({link}): 1 square differs from the game: {squares}.',
  board_agrees: '{board} ({link}): shows the game\'s position.',
  recorded: 'The resolution was written to the table\'s record.',
  game_over_result: 'Game over: {result}.',
  game_over_why: 'Game over: {result} — {why}.',
  sheets_differ: 'the two scoresheets differ.',
  proposal_takeback: 'take the game back to after {plies} (the last move both sheets agree on).',
  proposal_detail: 'Taken back from sheet A: {a}, from sheet B: {b}. Time used then: White {white}, Black {black}.',
  see_below: 'see below.',
  board_virtual: '{board}: none; the opponent\'s moves are entered here or by the assistant.',
  board_line: '{board}: {link}, {sync}.',
  sync_in: 'in sync with the game',
  sync_differs: 'DIFFERS from the game',
  sync_owes: 'still owes the opponent\'s last move',
  needs: 'Needs: {guide}',
  the_peg_board: 'the peg board',
  the_opponent_board: 'the opponent\'s board',
  board_differs_after: '{board} differs from the game after {plies}.',
  record_stands_correct: 'the game\'s record stands; correct {board}: {guide}.',
  squares_marked: 'the squares marked in the drawing below.',
  record_stands_guided: 'the game\'s record stands; correct the board as it guides.',
  moves_played: '{moves} played.',
  no_clock_yet: 'no clock reading yet',
  clocks_line: 'White {white}, Black {black}; {moves} played; {running}.',
  clocks_stopped_lower: 'clocks stopped',
  white_running: 'White\'s clock running',
  black_running: 'Black\'s clock running',
  one_record_note: 'The daemon keeps one record of this game; a second scoresheet appears here when the daemon keeps both players\' sheets.',
  first_diff: 'First difference at move {n} ({color}): {a} against {b}; marked ≠ below.',
  nothing: 'nothing',
  first_diff_cell: '{move}, first difference',
  one_record: 'One game record; no second sheet to compare.',
  sheet_no: 'No.',
  to_blind: 'to the blind player',
  to_opponent: 'to the opponent',
  to_arbiter: 'to the arbiter',
  to_everyone: 'to everyone',
  promotion_chosen: 'Promotion chosen: {piece}.',
  white_no_piece: 'White has no such piece.',
  black_no_piece: 'Black has no such piece.',
  cleared: 'Cleared',
  skip_link: 'Skip to move entry',
  login_title: 'Log in',
  login_text: 'Enter the token the arbiter gave you (the same token as for the control interface).',
  token: 'Token',
  log_in: 'Log in',
  tables_text: 'Your token may see these tables.',
  board_help: 'Arrow keys move square by square. Letters a to h jump to a file, digits 1 to 8 to a rank; J then a piece letter jumps to the next white piece of that kind, J then Shift and the letter to the next black one. Shift+W and Shift+B list the white and black pieces, Shift+F and Shift+R read the file and the rank, Shift+M the moves and Shift+A the attackers of the square, Shift+L the last move, Shift+C the clocks. Enter on two squares fills in the move. Question mark: all keys.',
  white: 'White',
  black: 'Black',
  lang_label: 'Language of moves typed and of the scoresheet',
  promotion_title: 'Promotion pending: choose the new piece',
  mismatch_title: 'Mismatch procedure (FIDE D.2.9)',
  mm_step_what: 'What differs.',
  mm_step_boards: 'Both boards.',
  mm_boards_text: 'The game\'s board is shown above; the physical board needs:',
  mm_step_sheets: 'Both scoresheets.',
  mm_sheets_text: 'They are side by side under Scoresheets.',
  mm_step_proposal: 'Proposed resolution.',
  mm_step_decides: 'The arbiter decides.',
  mm_confirm: 'Confirm the proposal',
  mm_reject: 'Reject the proposal',
  mm_override_label: 'Override: take back to after this many half-moves',
  mm_override: 'Override',
  mm_undo: 'Withdraw only the last move (D.2.8)',
  mm_step_clocks: 'Clock adjustment.',
  mm_clocks_text: 'A takeback puts the clocks back to their readings at that move; the arbiter\'s clock adjustment below corrects them by hand.',
  record_label: 'Enter or correct',
  record_a: 'sheet A (blind player)',
  record_b: 'sheet B (sighted player)',
  record_moves_label: 'as a move list in any notation',
  record_button: 'Record sheet',
  lag_confirm: 'Confirm the missing moves',
  lag_dispute: 'Dispute them',
  transcript_note: 'The list below keeps everything said, whatever is read out.',
  adjust_clock_label: 'Clock',
  adjust_seconds_label: 'seconds (+ adds, − takes)',
  adjust_button: 'Adjust clock',
  penalty_label: 'Illegal move completed by',
  penalty_button: 'Penalty (7.5.5)',
  new_game_label: 'Next game from a position (FEN, empty for the start)',
  result_label: 'Result (the arbiter\'s decision)',
  tag_label: 'Header tag',
  tag_event: 'Event',
  tag_site: 'Site',
  tag_round: 'Round',
  tag_value_label: 'text',
  pause: 'Pause clocks',
  resume: 'Resume clocks',
  export_iccf: 'ICCF numeric',
  export_braille: 'Braille (Unicode)',
  export_brf: 'Braille (.brf)',
  export_audio: 'Audio record (.wav)',
  resign_explain: 'This ends the game at once and cannot be taken back.',
  keys_title: 'Keyboard commands on the board',
  key_arrows: 'Arrow keys',
  key_arrows_do: 'one square; Home and End: the ends of the rank',
  key_files: 'a to h',
  key_files_do: 'jump to that file on the same rank',
  key_ranks: '1 to 8',
  key_ranks_do: 'jump to that rank on the same file',
  key_jump: 'J, then k, q, r, b, n or p',
  key_jump_do: 'jump to the next white king, queen, rook, bishop, knight or pawn (the table\'s own piece letters work too); J, then Shift and the letter: the next black one',
  key_moves_do: 'the legal moves of the piece on the square (for the side not to move: the squares it attacks)',
  key_attackers_do: 'the white and black pieces attacking the square',
  key_list_do: 'list all white or all black pieces',
  key_line_do: 'read the current file or rank, piece by piece',
  key_last_do: 'the last move',
  key_clocks_do: 'both clocks',
  key_state_do: 'the game\'s state and the boards',
  key_enter: 'Enter or Space',
  key_enter_do: 'first the square a piece leaves, then the square it goes to: the move is filled in and previewed',
  key_escape: 'Escape',
  key_escape_do: 'forget the first square',
  key_undo: 'U (Alt+U anywhere)',
  key_undo_do: 'undo my own last move',
  close: 'Close',
  fetching_audio: 'Fetching the audio record…',
  nav_label: 'Page',
  link_connected: 'connected',
  link_disconnected: 'disconnected',
  draw_agreed: 'Draw agreed.',
  resigns: '{color} resigns.',
  lang_set: 'Language of moves typed: {code}.',
  new_game_started: 'New game started.',
  tag_set: '{tag}: {text}.',
  sheet_recorded: 'Sheet {side}: {plies}.',
  sheet_confirmed: 'Sheet {side} confirmed.',
  sheet_disputed: 'Sheet {side} disputed.',
  sheet_lags_by: 'Sheet {side} lags by {plies}.',
  sheets_differ_after: 'The scoresheets differ; they agree up to {plies}. A takeback to there is proposed to the arbiter.',
  penalty_time: '{color} gets the penalty time; {left} left.',
  second_illegal: 'Second illegal move by {color}: the game is over.',
  ws_failed: 'the page could not open its connection to the daemon',
  is_it_running: '{why}. Is annabella serve running?',
  ws_closed: 'the connection to the daemon is closed',
  entry_bytes: 'the entry is {bytes} bytes long; a request is at most {max} bytes',
  not_connected_daemon: 'not connected to the daemon',
};

// A label in the table's language, its `{name}`s filled from `args` (every place the name
// stands; a value is put in as it is, whatever characters it has).
function L(key, args = {}) {
  const page = app.words && app.words.page;
  const own = page && page[key];
  let text = own || LABELS[key] || key;
  for (const [k, v] of Object.entries(args)) text = text.split(`{${k}}`).join(String(v));
  return text;
}

// A label with a count: `key_one` for one (where the labels have it), `key` with `{n}`
// otherwise. Two forms are enough for the seven languages of the page.
function Ln(key, n, args = {}) {
  const one = n === 1 && (LABELS[`${key}_one`] !== undefined);
  return L(one ? `${key}_one` : key, { n, ...args });
}

// A label whose `{name}`s are filled with nodes (words in another language, marked with
// their own `lang`): the parts, for `append` or `replaceChildren`.
function LN(key, args) {
  const parts = [];
  let text = L(key);
  for (;;) {
    const m = /\{(\w+)\}/.exec(text);
    if (!m) break;
    parts.push(text.slice(0, m.index));
    const v = args[m[1]];
    parts.push(v === undefined ? m[0] : v);
    text = text.slice(m.index + m[0].length);
  }
  parts.push(text);
  return parts.filter((p) => p !== '');
}

// A colour ('white', 'black') in the table's words.
function colorName(c) {
  return (app.words && app.words[c]) || L(c);
}

// A role ('white', 'black', 'observer', 'arbiter') in the page's labels.
function roleName(role) {
  return LABELS[`role_${role}`] !== undefined ? L(`role_${role}`) : role;
}

// A board's link as the protocol says it (`connected`, `disconnected`) in words.
function linkWords(link) {
  return LABELS[`link_${link}`] !== undefined ? L(`link_${link}`) : link;
}

// A refusal code of the control protocol in words.
function codeWords(code) {
  return LABELS[`code_${code}`] !== undefined ? L(`code_${code}`) : code;
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
  if (!tc) return L('tc_unknown');
  return tc.split(':').map((period) => {
    const m = /^(?:(\d+)\/)?(\d+)(?:\+(\d+))?$/.exec(period);
    if (!m) return period;
    const time = durationWords(Number(m[2]));
    let w = m[1] ? L('tc_moves_in', { moves: Ln('moves_n', Number(m[1])), time }) : time;
    if (m[3]) w = Ln('tc_plus', Number(m[3]), { time: w });
    return w;
  }).join(`, ${L('tc_then')} `);
}

