// The table page in a real headless Chromium, against a real `annabella serve` started by
// tests/web.rs. Peg-board moves are asked of the harness on standard output (`peg MOVE`), which
// types them on the simulated board and answers `typed` on standard input.
//
// Environment: WEB_URL, TOKEN_ASSISTANT, TOKEN_ARBITER, TOKEN_OBSERVER, TRANSCRIPT, OUT_DIR,
// CHROMIUM (the browser binary).
import { chromium } from 'playwright-core';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`e2e.mjs: the environment variable ${k} is not set (tests/web.rs sets it)`);
  return v;
};
const URL = env('WEB_URL');
const OUT = env('OUT_DIR');
const TRANSCRIPT = env('TRANSCRIPT');
const results = [];
const figures = {};

// ---- the harness: peg moves ----
const replies = [];
const waiting = [];
createInterface({ input: process.stdin }).on('line', (line) => {
  const w = waiting.shift();
  if (w) w(line); else replies.push(line);
});
function peg(move) {
  process.stdout.write(`peg ${move}\n`);
  return new Promise((resolve) => {
    if (replies.length) resolve(replies.shift()); else waiting.push(resolve);
  });
}

function check(name, ok, detail) {
  results.push({ name, ok: !!ok, detail });
  console.error(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ': ' + detail : ''}`);
  if (!ok) throw new Error(`${name}: ${detail}`);
}

async function waitFor(what, fn, timeout = 5000) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no ${what} within ${timeout} ms (last: ${JSON.stringify(last)})`);
}

// Every text put into a live region, in order, with its language (the page empties both
// regions before each phrase, so a phrase said twice is recorded twice).
const RECORD_LIVE = () => {
  window.__live = [];
  const shown = { 'live-polite': '', 'live-assertive': '' };
  new MutationObserver(() => {
    for (const id of ['live-polite', 'live-assertive']) {
      const el = document.getElementById(id);
      const t = (el && el.textContent) || '';
      if (t && t !== shown[id]) {
        window.__live.push({ id, text: t, lang: el.querySelector('[lang]')?.lang || '' });
      }
      shown[id] = t;
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
};

// axe-core (pinned in package-lock.json), evaluated in the page through the DevTools protocol,
// which the page's content security policy does not govern.
const AXE = readFileSync(join(process.cwd(), 'node_modules/axe-core/axe.min.js'), 'utf8');
async function axe(page, state) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => `${v.id} (${v.nodes.length}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')})`);
  });
  (figures.axe_violations ||= {})[state] = violations.length;
  check(`axe-core: no violation (${state})`, violations.length === 0, violations.join('; '));
}

// The page at a German table speaks German: no English fallback text (a LABELS value the German
// file words otherwise; each of its parts between placeholders of two words or more, or one
// word of ten letters or more) is
// on the page, in a label read by a screen reader, or in what the page announced; and every
// announcement is marked German.
async function noEnglish(page, state) {
  await waitFor('the German labels', () => page.evaluate(() => document.documentElement.lang === 'de'));
  const got = await page.evaluate(() => {
    const own = (app.words && app.words.page) || {};
    const parts = new Set();
    for (const [k, en] of Object.entries(LABELS)) {
      if (own[k] === en) continue;
      for (const p of en.split(/\{\w+\}/)) {
        const t = p.trim();
        // Single short words ('observer') are left out: the daemon's own refusal messages
        // (English, the protocol's) may use them.
        if (t.length >= 6 && /[a-z]{3}/.test(t) && (t.includes(' ') || t.length >= 10)) parts.add(t);
      }
    }
    const labels = [...document.querySelectorAll('[aria-label]')].filter((n) => n.offsetParent !== null || n.tagName === 'NAV')
      .map((n) => n.getAttribute('aria-label'));
    const shown = [document.body.innerText, ...labels].join('\n');
    const said = window.__live.map((l) => l.text);
    const where = (p) => {
      const t = shown.includes(p) ? shown : said.find((x) => x.includes(p));
      const i = t.indexOf(p);
      return `${p} (in “${t.slice(Math.max(0, i - 40), i + p.length + 40).replace(/\s+/g, ' ')}”)`;
    };
    const hits = [...parts].filter((p) => shown.includes(p) || said.some((t) => t.includes(p))).map(where);
    const notGerman = window.__live.filter((l) => l.lang !== 'de').map((l) => `${l.text} [${l.lang}]`);
    return { parts: parts.size, said: said.length, hits, notGerman };
  });
  (figures.english_parts_checked ||= {})[state] = got.parts;
  check(`no English page text at a German table (${state})`, got.hits.length === 0, got.hits.join(' | '));
  check(`every announcement is marked German (${state}, ${got.said})`, got.notGerman.length === 0, got.notGerman.join(' | '));
}

// The harness stops the daemon (SIGTERM) or starts it again on the same state and ports.
function daemonLine(line) {
  process.stdout.write(line + '\n');
  return new Promise((resolve) => {
    if (replies.length) resolve(replies.shift()); else waiting.push(resolve);
  });
}

const live = (page) => page.evaluate(() => window.__live.map((l) => `${l.id}: ${l.text}`));
const fenOf = (page) => page.locator('#board-svg').getAttribute('data-fen');
const text = (page, sel) => page.locator(sel).innerText();
const focusedLabel = (page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label') || document.activeElement?.id);

async function tabTo(page, predicate, what, key = 'Tab', max = 80) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    if (await page.evaluate(predicate)) return;
  }
  throw new Error(`Tab never reached ${what}`);
}

async function main() {
  const browser = await chromium.launch({
    executablePath: env('CHROMIUM'),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    // playwright gives every launch a fresh, temporary profile (its own --user-data-dir).
  });
  try {
    await run(browser);
  } finally {
    await browser.close();
  }
}

async function run(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, acceptDownloads: true });
  const page = await context.newPage();
  await page.addInitScript(RECORD_LIVE);
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));

  // --- keyboard only: log in, reach the board, the move entry ---
  await page.goto(URL);
  await waitFor('the token field focused', () => page.evaluate(() => document.activeElement?.id === 'token'));
  await page.keyboard.type(env('TOKEN_ASSISTANT'));
  await page.keyboard.press('Enter');
  await page.locator('#table-view').waitFor({ state: 'visible', timeout: 5000 });
  await page.locator('body[data-ready]').waitFor({ state: 'attached', timeout: 5000 });
  await waitFor('the start position', async () => (await fenOf(page))?.startsWith('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w'));
  check('keyboard login opens the table', true, await text(page, '#table-title'));
  // The assistant hears the opponent's words by default; this test follows everything.
  check('an assistant hears the opponent\'s words by default', (await page.locator('#hear').inputValue()) === 'opponent');
  await page.locator('#hear').selectOption('all');

  // --- a move on the peg board appears on the page within 500 ms ---
  const latencies = [];
  for (const [move, fen] of [['e4', 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b']]) {
    const t0 = Date.now();
    await peg(move);
    await waitFor(`the peg move ${move} on the page`, async () => (await fenOf(page))?.startsWith(fen), 3000);
    latencies.push(Date.now() - t0);
  }
  check('the peg board move 1.e4 is on the page', true, `${latencies[0]} ms`);
  await axe(page, 'game (assistant)');

  // --- a move typed on the page (keyboard: skip link, type, Enter) is announced to the blind player ---
  // From the table's heading (focused when the table opens) back to the page's first link.
  await tabTo(page, () => document.activeElement?.id === 'skip-link', 'the skip link', 'Shift+Tab');
  check('the skip link is reached by keyboard', true);
  await page.keyboard.press('Enter');
  check('the skip link focuses the move entry', (await page.evaluate(() => document.activeElement?.id)) === 'move-text');
  await page.keyboard.type('e5');
  const preview = await waitFor('the parsed preview', async () => {
    const t = await text(page, '#preview');
    return t.startsWith('Verstanden') && t;
  });
  check('the move is previewed before it is sent', preview.includes('e7e5') && preview.includes('Eva fünf'), preview);
  await noEnglish(page, 'preview');
  await page.keyboard.press('Enter');
  await waitFor('1...e5 on the board', async () => (await fenOf(page))?.startsWith('rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w'));
  // The blind player replicates it on his peg board.
  await peg('e5');
  const heard = await waitFor('the announcement in the transcript file', () => {
    const lines = readFileSync(TRANSCRIPT, 'utf8').split('\n');
    return lines.find((l) => / blind .*Eva fünf/.test(l));
  });
  check('the typed move is announced to the blind player', true, heard);
  // Replicated on the peg board: the page says so (no "still owes the opponent's last move").
  const synced = await waitFor('the peg board in sync after the replication', async () => {
    const t = await text(page, '#boards-state');
    return t.includes('im Einklang') && t;
  });
  check('after the replication the peg board is in sync on the page', !synced.includes('fehlt noch'), synced);
  const liveTexts = await waitFor('the live region', async () => {
    const l = await live(page);
    return l.some((t) => t.includes('Eva fünf')) && l;
  });
  check('the live region holds the announcement', true, liveTexts.filter((t) => t.includes('Eva fünf')).join(' | '));
  check('the transcript on the page shows it', (await text(page, '#transcript')).includes('Eva fünf'));

  // --- a refused move shows the daemon's error in words ---
  await page.locator('#move-text').fill('e5');
  await page.keyboard.press('Enter');
  const refused = await waitFor('the refusal', async () => text(page, '#move-error'));
  check('a refused move shows the error', refused.startsWith('Abgelehnt (kein regelgerechter Zug)'), refused);
  await waitFor('the refusal announced assertively', async () => (await live(page)).some((t) => t.startsWith('live-assertive: Abgelehnt')));
  await noEnglish(page, 'a refusal');

  // --- peg move 2.Nf3, timed again ---
  {
    const t0 = Date.now();
    await peg('Nf3');
    await waitFor('2.Nf3 on the page', async () => (await fenOf(page))?.startsWith('rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b'), 3000);
    latencies.push(Date.now() - t0);
    // The blind player's own move is said to him and to the opponent in the same words; a
    // page hearing everything reads it once.
    await new Promise((r) => setTimeout(r, 2500));
    const readOut = (await live(page)).filter((t) => t.endsWith('Springer Felix drei'));
    const listed = (await text(page, '#transcript')).split('\n').filter((l) => l.endsWith('Springer Felix drei'));
    figures.nf3_said_to = listed.length;
    figures.nf3_read = readOut.length;
    check('a phrase said to two listeners is read once', readOut.length === 1 && listed.length >= 1, `read ${readOut.length} times, in the transcript ${listed.length} times`);
    // Where the time goes: the daemon's announcement (the transcript's clock) against the page.
    const said = readFileSync(TRANSCRIPT, 'utf8').split('\n').find((l) => l.includes('Springer Felix drei'));
    if (said) figures.peg_to_speech_ms = Number(said.split(' ')[0]) - t0;
  }
  figures.peg_to_page_ms = latencies;
  const worst = Math.max(...latencies);
  check('peg board to page latency under 500 ms', worst < 500, `${latencies.join(', ')} ms`);

  // --- the board by keyboard: the grid reads squares in the table's language ---
  await page.locator('#board-grid [tabindex="0"]').focus();
  await page.keyboard.press('f');
  await page.keyboard.press('3');
  const label = await focusedLabel(page);
  check('f then 3 lands on Felix drei with its piece', /^Felix drei, weißer Springer$/.test(label), label);
  await page.keyboard.press('ArrowUp');
  check('arrow up reads the next square', (await focusedLabel(page)) === 'Felix vier', await focusedLabel(page));
  await page.keyboard.press('Shift+W');
  const listing = await waitFor('the list of white pieces', async () => (await live(page)).find((t) => t.includes('Weiß:')));
  check('Shift+W lists the white pieces', listing.includes('König Eva eins') && listing.includes('Springer Bella eins, Felix drei'), listing);
  await page.keyboard.press('Shift+L');
  const lastRead = await waitFor('the last move read', async () => (await live(page)).find((t) => /2\. Sf3, Springer Felix drei$/.test(t)));
  check('Shift+L reads the last move in the table\'s words', true, lastRead);
  check('announcements are marked with their language', await page.evaluate(() => window.__live.filter((l) => l.text.includes('Springer Felix drei')).every((l) => l.lang === 'de')));
  // Piece jumps: J then a piece letter, the next white one; J then Shift and the letter, black.
  await page.keyboard.press('j'); await page.keyboard.press('n');
  const jumpW = await focusedLabel(page);
  await page.keyboard.press('j'); await page.keyboard.press('Shift+N');
  const jumpB = await focusedLabel(page);
  check('J N and J Shift+N jump to the knights', /weißer Springer$/.test(jumpW) && /schwarzer Springer$/.test(jumpB), `${jumpW} | ${jumpB}`);

  // --- the command line in the move entry ---
  const command = async (line, want) => {
    await page.locator('#move-text').fill(line);
    await page.locator('#move-text').press('Enter');
    const said = await waitFor(`the answer to ${line}`, async () => {
      const t = await text(page, '#preview');
      return want.test(t) && t;
    });
    check(`command "${line}"`, true, said);
    return said;
  };
  await command('c', /^Weiß .*(Stunde|Minute).*Schwarz .*Züge? gespielt/);
  await command('l', /^2\. Sf3, Springer Felix drei$/);
  await command('t', /^Schwarz am Zug\.$/);
  await command('i', /Bedenkzeit: .*(Stunde|Minute).*Der blinde Spieler spielt Weiß\. 3 Halbzüge gespielt\.$/);
  await command('p N', /^Weiß: Springer Bella eins, Felix drei$/);
  await command('p n', /^Schwarz: Springer Bella acht, Gustav acht$/);
  await command('s e', /^Eva: Eva acht schwarzer König; Eva fünf schwarzer Bauer; Eva vier weißer Bauer; Eva eins weißer König$/);
  await command('s 4', /^vier: Eva vier weißer Bauer$/);
  await command('m b8', /^Bella acht, schwarzer Springer: Anna sechs, Cesar sechs$/);
  // The page's own move generator (for m and Shift+M) on positions the game does not reach:
  // castling both ways, a pinned knight, en passant, no castling through an attacked square.
  const moves = await page.evaluate(() => [
    legalTargets(position('r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1'), 'e1'),
    legalTargets(position('4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1'), 'e2'),
    legalTargets(position('4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1'), 'e5'),
    legalTargets(position('4k3/8/8/8/8/8/5r2/4K2R w K - 0 1'), 'e1'),
  ].map((l) => l.join(' ')));
  check('legal moves: castling, pins, en passant, no castling through check',
    moves[0] === 'c1 d1 d2 e2 f1 f2 g1' && moves[1] === '' && moves[2] === 'd6 e6' && moves[3] === 'd1 f2', moves.join(' | '));
  await command('a e5', /Weiß: weißer Springer Felix drei\. Schwarz: –\.$/);
  await command('x', /^Weiß: –\. Schwarz: –\.$/);
  const lost = await page.evaluate(() => capturedWords('4k3/8/8/8/8/8/8/QQ2K3 w - - 0 1'));
  check('x names the pieces each side lost, a promoted piece as its pawn', lost === 'Weiß: Turm, Turm, Läufer, Läufer, Springer, Springer, Bauer, Bauer, Bauer, Bauer, Bauer, Bauer, Bauer. Schwarz: Dame, Turm, Turm, Läufer, Läufer, Springer, Springer, Bauer, Bauer, Bauer, Bauer, Bauer, Bauer, Bauer, Bauer.', lost);
  await command('[', /^2\. Sf3$/);
  await command('[', /^1… e5$/);
  // The picture steps back with the record; the squares' grid stays the game as it stands.
  const pastShown = await waitFor('the picture after 1… e5', async () => {
    const shown = await page.locator('#board-svg').getAttribute('data-shown-fen');
    return shown === 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2' && shown;
  });
  const pastCaption = await text(page, '#board-caption');
  check('[ redraws the picture at the move read, and says the squares are the game', !!pastShown
    && pastCaption.includes('Das Bild zeigt die Stellung nach 1… e5') && pastCaption.includes('Die Felder darunter sind die aktuelle Partie'), pastCaption);
  await command(']', /^2\. Sf3$/);
  const backNow = await waitFor('the picture back at the game', async () => {
    const svg = page.locator('#board-svg');
    const [shown, fen] = [await svg.getAttribute('data-shown-fen'), await svg.getAttribute('data-fen')];
    return shown === fen && (await text(page, '#board-caption')).includes('Letzter Zug:') && shown;
  });
  check('] to the last move shows the game again', !!backNow, backNow);
  await command('/h', /^Befehle: /);
  await noEnglish(page, 'the command help');
  // b4 is a move, not a command: the daemon is asked and refuses it (Black cannot play b4).
  await page.locator('#move-text').fill('b4');
  await page.locator('#move-text').press('Enter');
  const b4 = await waitFor('b4 refused as a move', async () => text(page, '#move-error'));
  check('b4 is read as a move, not a command', b4.startsWith('Abgelehnt (kein regelgerechter Zug)'), b4);
  // An overlong paste is refused on the page, in words; the connection stays.
  await page.locator('#move-text').fill('e'.repeat(3 * 1024));
  await page.locator('#move-text').press('Enter');
  const long = await waitFor('the overlong entry refused', async () => {
    const t = await text(page, '#move-error');
    return t.includes('zu lang') && t;
  });
  check('a 3 KiB paste is an error message', long.includes('3072 Bytes'), long);
  // Sent anyway over the socket, the daemon answers with an error line and keeps it open.
  await page.evaluate(() => conn.ws.send('e'.repeat(3 * 1024)));
  await new Promise((r) => setTimeout(r, 300));
  check('the connection stays open after a 3 KiB paste', await page.evaluate(() => conn && conn.ws.readyState === WebSocket.OPEN)
    && !(await text(page, '#connection')).includes('verloren'));
  await page.locator('#move-text').fill('');
  await page.locator('#board-grid [tabindex="0"]').focus();
  // Enter on two squares fills in the move: b8 then c6.
  await page.keyboard.press('b'); await page.keyboard.press('8'); await page.keyboard.press('Enter');
  await page.keyboard.press('c'); await page.keyboard.press('6'); await page.keyboard.press('Enter');
  check('two squares fill in the move', (await page.locator('#move-text').inputValue()) === 'b8c6');
  await waitFor('its preview', async () => (await text(page, '#preview')).includes('Cesar sechs'));
  await page.keyboard.press('Enter');
  await waitFor('2...Nc6 on the board', async () => (await fenOf(page))?.startsWith('r1bqkbnr/pppp1ppp/2n5/'));
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(OUT, 'table.png'), fullPage: false });

  // --- the mismatch procedure: the blind player's board shows 2...Nf6, the game 2...Nc6 ---
  await peg('Nf6');
  await page.locator('#mismatch').waitFor({ state: 'visible', timeout: 3000 });
  const proposal = await waitFor('the proposed resolution', async () => {
    const t = await text(page, '#mm-corrections');
    return !t.startsWith('waiting') && t;
  });
  check('the mismatch procedure shows what the peg board needs', /Felix sechs|Cesar sechs|Gustav acht|Bella acht/.test(proposal), proposal);
  // Both boards: the peg board drawn beside the game, its differing squares marked and named.
  const pegBoard = await waitFor('the peg board drawn', async () => {
    const t = await text(page, '#mm-boards-summary');
    return t.startsWith('Steckbrett') && t.includes('weich') && t;
  });
  check('the peg board is shown with the squares that differ', /c6 ist leer/.test(pegBoard) && /auf f6 steht/.test(pegBoard), pegBoard);
  check('the peg board is drawn', (await page.locator('#mm-boards svg').count()) >= 1);
  await waitFor('the mismatch announced assertively', async () => (await live(page)).some((t) => t.startsWith('live-assertive:') && t.includes('stimmt nicht')), 10000);
  await page.screenshot({ path: join(OUT, 'mismatch.png'), fullPage: true });
  await axe(page, 'mismatch (assistant)');
  await noEnglish(page, 'mismatch (assistant)');

  // The arbiter rules on it from his own page: the assistant misheard, the opponent played Nf6.
  const arbiter = await context.newPage();
  await arbiter.addInitScript(RECORD_LIVE);
  await arbiter.goto(`${URL}#token=${env('TOKEN_ARBITER')}`);
  await arbiter.locator('#table-view').waitFor({ state: 'visible', timeout: 5000 });
  await arbiter.locator('body[data-ready]').waitFor({ state: 'attached', timeout: 5000 });
  await arbiter.locator('#mismatch').waitFor({ state: 'visible', timeout: 3000 });
  // Opened late, during the mismatch: the page knows at once what the board needs.
  const lateGuide = await text(arbiter, '#mm-corrections');
  check('a late arbiter page shows the correction at once', /Springer/.test(lateGuide) && !lateGuide.startsWith('waiting'), lateGuide);
  const lateBoards = await waitFor('the late page\'s drawing', async () => {
    const t = await text(arbiter, '#mm-boards-summary');
    return t.includes('weich') && t;
  });
  check('a late arbiter page draws the differing boards', /c6 ist leer/.test(lateBoards), lateBoards);
  await axe(arbiter, 'mismatch (arbiter)');
  await arbiter.locator('#mm-undo').click();
  await waitFor('the move withdrawn', async () => (await fenOf(arbiter))?.startsWith('rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/'));
  await arbiter.locator('#move-text').fill('Sf6');
  await arbiter.locator('#move-text').press('Enter');
  await waitFor('2...Nf6 in the game', async () => (await fenOf(arbiter))?.startsWith('rnbqkb1r/pppp1ppp/5n2/'));
  const resolved = await waitFor('the mismatch resolved', async () => {
    const t = await text(arbiter, '#mm-state');
    return t.startsWith('Gelöst') && t;
  });
  check('the mismatch is resolved from the page', true, resolved);
  const redrawn = await waitFor('the resolved drawing', async () => {
    const t = await text(page, '#mm-boards-summary');
    return t.includes('zeigt die Stellung der Partie') && !t.includes('weich') && t;
  });
  check('after the resolution the drawing shows no difference', true, redrawn);
  await arbiter.locator('#adjust-seconds').fill('+30');
  await arbiter.locator('#adjust-form button').click();
  const adjusted = await waitFor('the clock adjusted', async () => text(arbiter, '#arbiter-result'));
  check('the arbiter adjusts the clock', adjusted.includes('Weiß') && adjusted.includes('+30'), adjusted);
  check('the assistant page follows the arbiter', (await fenOf(page))?.startsWith('rnbqkb1r/pppp1ppp/5n2/'));
  check('both sheets side by side', (await text(page, '#sheet-a-title')).includes('Formular A') && (await text(page, '#sheet-b-title')).includes('Formular B'));
  // The assistant is no arbiter: the server's refusal is shown.
  check('a non-arbiter sees no arbiter tools', !(await page.locator('#pause').isVisible()) && !(await page.locator('#mm-confirm').isVisible()));
  await arbiter.close();

  // --- exports ---
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-export="pgn"]').click()]);
  const pgnPath = join(OUT, 'game.pgn');
  await download.saveAs(pgnPath);
  const pgn = readFileSync(pgnPath, 'utf8');
  const movetext = pgn.replace(/\{[^}]*\}/g, '').replace(/\d+\.\.\./g, '').replace(/\s+/g, ' ');
  check('the PGN export downloads the game', movetext.includes('1. e4 e5 2. Nf3 Nf6'), movetext.slice(-80));
  const [brf] = await Promise.all([page.waitForEvent('download'), page.locator('[data-export="brf"]').click()]);
  await brf.saveAs(join(OUT, 'game.brf'));
  check('the Braille export downloads', readFileSync(join(OUT, 'game.brf'), 'utf8').length > 10);
  await page.locator('#export-audio').click();
  const audio = await waitFor('the audio answer', async () => {
    const t = await text(page, '#export-result');
    return !t.startsWith('Die Tonaufnahme wird') && t.startsWith('Keine Tonaufnahme') && t;
  });
  check('without a WAV backend the audio export says so', audio.includes('wav:DIR'), audio);

  // --- two sheets that differ (D.2.9): the sighted player's sheet says 2...Sc6, and the blind
  // player's board differs from the game (he took the knight back from f6 to g8). With both
  // boards showing the game, a differing sheet would only be corrected (no takeback).
  await peg('raw Lf6');
  await peg('raw Pg8');
  await arbiter2(context, async (arb) => {
    await arb.locator('#record-side').selectOption('b');
    await arb.locator('#record-moves').fill('1. e4 e5 2. Sf3 Sc6');
    await arb.locator('#record-moves').press('Enter');
    const diff = await waitFor('the first difference', async () => {
      const t = await text(arb, '#sheet-diff');
      return t.startsWith('Erster Unterschied') && t;
    });
    check('the first difference of the sheets is named and marked', diff.includes('Zug 2 (Schwarz)') && diff.includes('Sf6') && diff.includes('Sc6')
      && (await arb.locator('#sheet-b td.diff').innerText()).includes('Sc6'), diff);
    const proposal = await waitFor('the proposed takeback', async () => {
      const t = await text(arb, '#mm-proposal');
      return t.includes('die Partie auf den Stand zurücknehmen') && t;
    });
    check('the procedure proposes a takeback', proposal.includes('als 3 Halbzüge gespielt waren'), proposal);
    // Urgency is the utterance's own: what interrupts the voice is announced assertively.
    check('differing sheets are announced assertively', await waitFor('differing sheets announced assertively', async () => (await live(page)).some((t) => t.startsWith('live-assertive: Die Partieformulare weichen')), 10000));
    await arb.screenshot({ path: join(OUT, 'sheets-differ.png'), fullPage: true });
    await axe(arb, 'differing sheets (arbiter)');
    await arb.locator('#mm-confirm').click();
    await waitFor('the takeback on the board', async () => (await fenOf(arb))?.startsWith('rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/'));
    const done = await waitFor('the takeback reported', async () => {
      const t = await text(arb, '#mm-result');
      return t.startsWith('Rücknahme ausgeführt') && t;
    });
    check('the arbiter confirms the takeback from the page', true, done);
    check('the takeback is announced assertively', await waitFor('the takeback announced assertively', async () => (await live(page)).some((t) => t.startsWith('live-assertive: Die Züge werden bis zur letzten Übereinstimmung')), 10000));
    check('the clocks are put back', (await text(arb, '#mm-clocks')).startsWith('Die Uhren wurden zurückgestellt'), await text(arb, '#mm-clocks'));
    await noEnglish(arb, 'a takeback (arbiter)');
  });
  // The game went back to where the blind player's board stands.
  await waitFor('the peg board in sync again', async () => {
    const t = await text(page, '#boards-state');
    return t.includes('im Einklang') || (console.error('boards: ' + t), false);
  }, 3000);

  // --- the daemon restarts with the page open: the page reconnects by itself ---
  await page.locator('#move-text').focus();
  await page.evaluate(() => { window.__live.length = 0; });
  const stopped = Date.now();
  // An outage of several attempts (0.25, 0.5, 0.75, 1 s …): announced once all the same.
  await daemonLine('stop');
  await waitFor('four attempts to reconnect', async () => (await page.evaluate(() => reconnecting.attempt)) >= 4, 15000);
  figures.reconnect_attempts_in_outage = await page.evaluate(() => reconnecting.attempt);
  await daemonLine('start');
  const back = Date.now();
  await waitFor('the page reconnected', async () => (await text(page, '#connection')).includes('Wieder verbunden'), 5000);
  const reconnected = Date.now();
  figures.restart_ms = back - stopped;
  figures.reconnect_after_restart_ms = reconnected - back;
  check('the page reconnects within 5 s of the restart, without logging in again',
    reconnected - back < 5000 && await page.locator('#table-view').isVisible() && !(await page.locator('#login-view').isVisible()),
    `daemon down and up in ${back - stopped} ms; reconnected ${reconnected - back} ms later`);
  check('the focus is back where it was', (await page.evaluate(() => document.activeElement?.id)) === 'move-text');
  await waitFor('the reconnection read out', async () => (await live(page)).some((t) => t.includes('Wieder verbunden')), 10000);
  await settled(page);
  const told = (await live(page)).filter((t) => /verloren|Wieder verbunden/.test(t));
  figures.outage_announcements = told.length;
  check('the page says so in the table\'s language, once for the outage and once for its end', told.filter((t) => t.includes('verloren')).length === 1 && told.filter((t) => t.includes('Wieder verbunden')).length === 1, told.join(' | '));
  check('the connection line is no live region (its attempts are not read)', await page.locator('#connection').evaluate((el) => !el.getAttribute('role') && !el.getAttribute('aria-live')));
  await waitFor('the game after the restart', async () => (await fenOf(page))?.startsWith('rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/'));

  // --- the keys dialog ---
  await page.locator('#keys-help').click();
  await axe(page, 'keyboard dialog');
  await noEnglish(page, 'keyboard dialog');
  await page.keyboard.press('Escape');

  // --- a promotion choice: the four buttons, then the focus goes on to the move entry ---
  await page.evaluate(() => { window.__live.length = 0; showPromotion('e7e8'); });
  await axe(page, 'promotion');
  const pending = await waitFor('the pending promotion announced', async () => (await live(page)).find((t) => t.includes('Umwandlung wartet auf Eva acht')), 5000);
  check('a pending promotion is announced to the assistant, in the table\'s language', true, pending);
  await page.locator('#promotion-buttons button').first().click();
  await waitFor('the promotion box closed', async () => !(await page.locator('#promotion').isVisible()));
  check('after a promotion choice the focus is on the move entry', (await page.evaluate(() => document.activeElement?.id)) === 'move-text');

  // --- resign asks first ---
  await page.locator('#resign').click();
  check('resign asks for confirmation', await page.locator('#resign-dialog').evaluate((d) => d.open));
  await axe(page, 'resign dialog');
  await page.keyboard.press('Escape');
  check('Escape keeps playing', !(await page.locator('#resign-dialog').evaluate((d) => d.open)) && (await text(page, '#status-line')).startsWith('Partie läuft'), await text(page, '#status-line'));

  // --- a draw claim asks first: a stray Enter claims nothing ---
  const before = await text(page, '#action-result');
  await page.locator('#claim-draw').focus();
  await page.keyboard.press('Enter');
  check('a draw claim asks for confirmation', await page.locator('#claim-dialog').evaluate((d) => d.open));
  check('the confirmation\'s focus is on keeping playing', (await page.evaluate(() => document.activeElement?.id)) === 'claim-no');
  await axe(page, 'claim dialog');
  await page.keyboard.press('Enter');
  check('Enter on the confirmation keeps playing, and nothing is claimed',
    !(await page.locator('#claim-dialog').evaluate((d) => d.open)) && (await text(page, '#action-result')) === before, await text(page, '#action-result'));

  // --- the page's labels and the clocks in the table's language ---
  check('the page\'s labels are German at a German table',
    (await text(page, '#board-title')) === 'Brett' && (await page.locator('#board-title').getAttribute('lang')) === 'de'
    && (await text(page, '#claim-draw')) === 'Remis beanspruchen…' && (await text(page, '#actions-title')) === 'Partie'
    && (await text(page, '#hear-label')) === 'Vorlesen' && (await text(page, '#status-line')).startsWith('Partie läuft.') && (await text(page, '#status-line')).includes(' am Zug'),
    `${await text(page, '#board-title')}, ${await text(page, '#claim-draw')}`);
  await noEnglish(page, 'playing');
  const clockWords = await page.locator('#clock-white .time-words').textContent();
  check('a clock is read as a duration in the table\'s words', /^(eine Stunde|\d+ Stunden)( (eine Minute|\d+ Minuten))?( (eine Sekunde|\d+ Sekunden))?$/.test(clockWords)
    && (await page.locator('#clock-white .time-words').getAttribute('lang')) === 'de', clockWords);

  // --- an observer reads only ---
  const observer = await context.newPage();
  await observer.addInitScript(RECORD_LIVE);
  await observer.goto(`${URL}#token=${env('TOKEN_OBSERVER')}`);
  await observer.locator('#table-view').waitFor({ state: 'visible', timeout: 5000 });
  await observer.locator('body[data-ready]').waitFor({ state: 'attached', timeout: 5000 });
  const visibleButtons = await observer.locator('#table-view button:visible').allInnerTexts();
  check('an observer sees no move, game or arbiter buttons',
    !(await observer.locator('#send-move').isVisible()) && !(await observer.locator('#game-actions').isVisible()) && !(await observer.locator('#arbiter-tools').isVisible()),
    visibleButtons.join(', '));
  check('an observer hears both sides\' moves by default', (await observer.locator('#hear').inputValue()) === 'moves');
  check('a page opened late frames the last move', (await text(observer, '#board-caption')).includes('Letzter Zug: 2. Sf3, Springer Felix drei'), await text(observer, '#board-caption'));
  await observer.locator('#move-text').fill('d4');
  await observer.locator('#move-text').press('Enter');
  const obs = await waitFor('the observer refused', async () => text(observer, '#move-error'));
  check('an observer may not move', obs.includes('nicht erlaubt'), obs);
  await settled(observer);
  const refusalsRead = (await live(observer)).filter((t) => t.includes('nicht erlaubt'));
  figures.refusal_read = refusalsRead.length;
  check('a refusal is read once', refusalsRead.length === 1, refusalsRead.join(' | '));
  await axe(observer, 'observer');
  await noEnglish(observer, 'observer');

  // --- a burst: a mate and the result in one frame, through the page's own receiving path ---
  await observer.evaluate(() => {
    window.__live.length = 0;
    conn.receive(JSON.stringify({ event: 'say', listener: 'all', text: 'Dame schlägt Felix sieben Matt', urgent: false, lang: 'de', line: '' }));
    conn.receive(JSON.stringify({ event: 'say', listener: 'all', text: 'Weiß gewinnt', urgent: true, lang: 'de', line: '' }));
    conn.receive(JSON.stringify({ event: 'say', listener: 'blind', text: 'Nur für den Blinden', urgent: false, lang: 'de', line: '' }));
  });
  const burst = await waitFor('both phrases of the burst read', async () => {
    const l = await live(observer);
    return l.length >= 2 && l;
  }, 6000);
  await new Promise((r) => setTimeout(r, 1500));
  const burstAll = await live(observer);
  figures.burst = burstAll;
  check('a mate and the result in one frame are both read, in order',
    burst[0] === 'live-polite: Dame schlägt Felix sieben Matt' && burst[1] === 'live-assertive: Weiß gewinnt', burst.join(' | '));
  check('an observer does not hear what is said only to the blind player', !burstAll.some((t) => t.includes('Nur für den Blinden')), burstAll.join(' | '));

  // --- the end: the assistant resigns for the blind player; every page says why ---
  await page.locator('#resign').click();
  await page.locator('#resign-yes').click();
  const over = await waitFor('the end on the observer\'s page', async () => {
    const t = await text(observer, '#status-line');
    return t.startsWith('Partie beendet') && t;
  });
  check('after the end the status says why, not whose turn', over.includes('Schwarz gewinnt') && !over.includes('am Zug'), over);
  const endRead = await waitFor('the end read out', async () => (await live(observer)).find((t) => /gibt auf|Schwarz gewinnt|aufgegeben/.test(t)), 6000);
  check('the end is read out on the observer\'s page', true, endRead);
  await axe(observer, 'game over (observer)');
  await axe(page, 'game over (assistant)');

  // --- a real burst: the arbiter starts a game from a position with a mate in one; the blind
  // player mates on the peg board; the mate and the result reach the pages together ---
  const mateFen = '6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1';
  await arbiter2(context, async (arb) => {
    const r = await arb.evaluate((f) => ask('new-game fen ' + f), mateFen);
    check('the arbiter starts a new game from a position', r.startsWith('ok new game'), r);
  });
  await peg('fen ' + mateFen);
  await waitFor('the new game on the observer\'s page', async () => (await fenOf(observer))?.startsWith('6k1/5ppp'));
  await waitFor('the peg board in sync with the new game', async () => (await text(observer, '#boards-state')).includes('im Einklang'));
  await waitFor('the new game\'s announcements read', async () => (await observer.evaluate(() => speech.queue.length)) === 0, 10000);
  await observer.evaluate(() => { window.__live.length = 0; });
  await peg('Ra8');
  let mateDebug = null;
  const mated = await waitFor('the mate and the result read', async () => {
    const l = await live(observer);
    const mate = l.findIndex((t) => t.includes('Matt'));
    const result = l.findIndex((t) => t.includes('Weiß gewinnt'));
    if (mate >= 0 && result >= mate) return l;
    mateDebug = { live: l, status: await text(observer, '#status-line'), boards: await text(observer, '#boards-state'), fen: await fenOf(observer) };
    return false;
  }, 10000).catch((e) => { throw new Error(`${e.message}; the observer's page: ${JSON.stringify(mateDebug)}`); });
  figures.real_mate_read = mated;
  check('a real mate and its result are both read on the observer\'s page, in order', true, mated.join(' | '));
  await settled(observer);
  const ends = (await live(observer)).filter((t) => /Weiß gewinnt|Partie beendet|Game over/.test(t));
  figures.end_read = ends.length;
  check('the end is read once, after the move', ends.length === 1 && ends[0].includes('Weiß gewinnt'), (await live(observer)).join(' | '));
  const matedStatus = await waitFor('the mate in the status', async () => {
    const t = await text(observer, '#status-line');
    return t.startsWith('Partie beendet') && t.includes('Weiß gewinnt') && t;
  });
  check('after the mate the status says so', matedStatus.includes('Matt'), matedStatus);
  await observer.close();

  // --- a wrong token ---
  const stranger = await context.newPage();
  await stranger.addInitScript(RECORD_LIVE);
  await stranger.goto(URL);
  await axe(stranger, 'login');
  await noEnglish(stranger, 'login');
  await stranger.locator('#token').fill('not-a-token-of-this-daemon');
  await stranger.locator('#token').press('Enter');
  const wrong = await waitFor('the login refusal', async () => text(stranger, '#login-error'));
  check('a wrong token is refused in words', wrong.includes('wrong token'), wrong);
  await new Promise((r) => setTimeout(r, 500));
  check('a wrong token does not also announce a closed connection', !(await live(stranger)).some((t) => t.includes('geschlossen')) && !(await text(stranger, '#connection')).includes('geschlossen'));
  await axe(stranger, 'login refused');
  await noEnglish(stranger, 'login refused');
  await stranger.close();

  // --- Log out forgets the token, the field too, and puts the focus on it ---
  await page.locator('#logout').click();
  check('Log out clears the token and focuses the field', (await page.locator('#token').inputValue()) === ''
    && (await page.evaluate(() => document.activeElement?.id)) === 'token'
    && (await page.evaluate(() => sessionStorage.getItem('annabella-token'))) === null);

  // --- 200 % zoom: the same page at half the CSS width, twice the pixels ---
  const zoomed = await browser.newContext({ viewport: { width: 640, height: 500 }, deviceScaleFactor: 2 });
  const z = await zoomed.newPage();
  await z.goto(`${URL}#token=${env('TOKEN_OBSERVER')}`);
  await z.locator('#table-view').waitFor({ state: 'visible', timeout: 5000 });
  await z.locator('body[data-ready]').waitFor({ state: 'attached', timeout: 5000 });
  await waitFor('the board at 200 %', async () => (await fenOf(z))?.startsWith('R5k1/5ppp/'));
  const overflow = await z.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check('no sideways scrolling at 200 % zoom', overflow <= 1, `${overflow} px too wide`);
  await z.screenshot({ path: join(OUT, 'zoom-200.png'), fullPage: false });
  await axe(z, '200 % zoom');
  await zoomed.close();
  const narrow = await browser.newContext({ viewport: { width: 375, height: 740 } });
  const n = await narrow.newPage();
  await n.goto(`${URL}#token=${env('TOKEN_ARBITER')}`);
  await n.locator('body[data-ready]').waitFor({ state: 'attached', timeout: 5000 });
  const narrowOverflow = await n.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check('no sideways scrolling at 375 px', narrowOverflow <= 1, `${narrowOverflow} px too wide`);
  await n.screenshot({ path: join(OUT, 'width-375.png'), fullPage: true });
  await axe(n, '375 px (arbiter)');
  await narrow.close();

  await bothSides(context, pageErrors);

  check('no script errors on the page', pageErrors.length === 0, pageErrors.join('; '));
  // The pages refresh their clocks quietly: the blind player hears the time only when asked.
  const spokenClocks = readFileSync(TRANSCRIPT, 'utf8').split('\n').filter((l) => / blind .*Stunde/.test(l));
  check('refreshing pages never make the clock talk', spokenClocks.length === 0, spokenClocks.join(' | '));
  await page.screenshot({ path: join(OUT, 'final.png'), fullPage: false });
}

// Every phrase queued on `p` so far has been read: a marker queued after them is.
async function settled(p) {
  const mark = `Probe ${Math.random()}`;
  await p.evaluate((m) => announce(m), mark);
  await waitFor('the queue read to its end', async () => (await live(p)).some((t) => t.includes(mark)), 15000);
}

async function opened(context, token, errors) {
  const p = await context.newPage();
  await p.addInitScript(RECORD_LIVE);
  p.on('pageerror', (e) => errors.push(e.message));
  await p.goto(`${URL}#token=${token}`);
  await p.locator('body[data-ready]').waitFor({ state: 'attached', timeout: 5000 });
  return p;
}

// The arbiter's new game, both sides' moves on an observer's page, two utterances in the same
// words both read, the one-key undo, the arbiter's tag and result, and the board in forced
// colours.
async function bothSides(context, errors) {
  const arb = await opened(context, env('TOKEN_ARBITER'), errors);
  const obs = await opened(context, env('TOKEN_OBSERVER'), errors);
  const asst = await opened(context, env('TOKEN_ASSISTANT'), errors);
  check('the arbiter reads everything by default', (await arb.locator('#hear').inputValue()) === 'all');
  // The game before ended in mate: the arbiter's controls start the next one.
  await arb.locator('#new-game-fen').fill('');
  await arb.locator('#new-game-button').click();
  const started = await waitFor('the new game started', async () => {
    const t = await text(arb, '#arbiter-result');
    return t.startsWith('Neue Partie') && t;
  });
  check('the arbiter starts a new game from the page', true, started);
  await peg('start');
  const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w';
  await waitFor('the new game on the pages', async () => (await fenOf(obs))?.startsWith(START) && (await fenOf(asst))?.startsWith(START));
  await arb.locator('#tag-name').selectOption('white');
  await arb.locator('#tag-value').fill('Anna Blind');
  await arb.locator('#tag-button').click();
  const tagged = await waitFor('the tag set', async () => text(arb, '#arbiter-result').then((t) => t.includes('Anna Blind') && t));
  check('the arbiter sets a header tag from the page', true, tagged);
  // The daemon's own word on the game: so many half-moves, the peg board in sync.
  const reached = (ply, what) => waitFor(what, async () => {
    const s = await asst.evaluate(() => ask('status'));
    return s.includes(` ply ${ply} `) && / peg \S+ in-sync/.test(s) && s;
  }, 5000);
  const typed = async (move) => {
    const r = await asst.evaluate((m) => ask('move ' + m), move);
    if (!r.startsWith('ok')) throw new Error(`move ${move}: ${r}`);
  };
  let ply = 0;
  for (const [white, black, replica] of [['e4', 'e5', 'e5'], ['Nf3', 'Sc6', 'Nc6'], ['d4', 'exd4', 'exd4']]) {
    await peg(white);
    await reached(++ply, `${white} played`);
    await typed(black);
    await peg(replica);
    await reached(++ply, `${black} replicated`);
  }
  for (const p of [arb, obs]) await settled(p);
  for (const p of [arb, obs]) await p.evaluate(() => { window.__live.length = 0; });
  // 4.Nxd4 on the peg board, then 4...Sxd4 relayed at once: the same words, two utterances.
  await peg('Nxd4');
  await reached(++ply, '4.Nxd4 played');
  await typed('Sxd4');
  const PHRASE = 'Springer schlägt David vier';
  await waitFor('both utterances on the pages', async () => {
    const listed = async (p) => (await text(p, '#transcript')).split('\n').filter((l) => l.endsWith(PHRASE)).length;
    return (await listed(arb)) >= 3 && (await listed(obs)) >= 3;
  }, 10000);
  for (const p of [arb, obs]) await settled(p);
  const readArb = (await live(arb)).filter((t) => t.endsWith(PHRASE));
  const readObs = (await live(obs)).filter((t) => t.endsWith(PHRASE));
  figures.same_words_read = { arbiter: readArb.length, observer: readObs.length, said: 3 };
  check('two moves in the same words are both read, each once (arbiter, reading everything)', readArb.length === 2, readArb.join(' | '));
  check('an observer hears both sides\' moves, the relayed one too', readObs.length === 2, readObs.join(' | '));
  // The report's scene through the page's own receiving path: the same words to another
  // listener 0.6 s later are another utterance and are read; one utterance to two listeners
  // is read once.
  await arb.evaluate(() => {
    window.__live.length = 0;
    const say = (listener, id) => conn.receive(JSON.stringify({ event: 'say', listener, text: 'Läufer schlägt Cesar vier', urgent: false, lang: 'de', id, about: 'move', line: '' }));
    say('opponent', 9000000001);
    say('blind', 9000000001);
    setTimeout(() => say('blind', 9000000002), 600);
  });
  await waitFor('both utterances read', async () => (await live(arb)).filter((t) => t.endsWith('Läufer schlägt Cesar vier')).length >= 2, 5000);
  await settled(arb);
  const twice = (await live(arb)).filter((t) => t.endsWith('Läufer schlägt Cesar vier'));
  check('the same words 0.6 s later to another listener are read; one utterance to two listeners once', twice.length === 2, twice.join(' | '));
  // The assistant takes back the move he relayed with one key.
  await asst.locator('#move-text').focus();
  await asst.keyboard.press('Alt+U');
  const undone = await waitFor('the one-key undo', async () => text(asst, '#action-result').then((t) => t.startsWith('Zug zurückgenommen') && t));
  await waitFor('the move withdrawn on the page', async () => / b /.test((await fenOf(asst)) || ''));
  check('one key undoes one\'s own last move', true, undone);
  // The board in forced colours (High Contrast): focus and selection keep their frames.
  await arb.emulateMedia({ forcedColors: 'active' });
  const cell = arb.locator('#board-grid [tabindex="0"]');
  await cell.focus();
  await arb.keyboard.press('a');
  await arb.keyboard.press('1');
  const focused = await arb.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  await arb.keyboard.press('Enter');
  await arb.keyboard.press('ArrowUp');
  const selected = await arb.evaluate(() => {
    const s = document.querySelector('#board-grid [aria-selected="true"]');
    return s ? getComputedStyle(s).outlineStyle : 'none';
  });
  check('in forced colours the focused and the chosen square are framed by outlines', focused !== 'none' && selected !== 'none', `focus ${focused}, chosen ${selected}`);
  await axe(arb, 'forced colours (arbiter)');
  await arb.keyboard.press('Escape');
  await arb.emulateMedia({ forcedColors: 'none' });
  await arb.locator('#result-value').selectOption('1/2-1/2');
  await arb.locator('#result-button').click();
  await waitFor('the result on the observer\'s page', async () => (await text(obs, '#status-line')).startsWith('Partie beendet'));
  check('the arbiter enters the result from the page', true, await text(obs, '#status-line'));
  for (const p of [arb, obs, asst]) await p.close();
}

async function arbiter2(context, body) {
  const arb = await context.newPage();
  await arb.addInitScript(RECORD_LIVE);
  await arb.goto(`${URL}#token=${env('TOKEN_ARBITER')}`);
  await arb.locator('#table-view').waitFor({ state: 'visible', timeout: 5000 });
  await arb.locator('body[data-ready]').waitFor({ state: 'attached', timeout: 5000 });
  await body(arb);
  await arb.close();
}

let failed = false;
try {
  await main();
} catch (e) {
  failed = true;
  console.error('FAIL', e.message);
}
writeFileSync(join(OUT, 'results.json'), JSON.stringify({ results, figures }, null, 2));
const passed = results.filter((r) => r.ok).length;
console.error(`figures: ${JSON.stringify(figures)}`);
console.error(`${passed} passed, ${results.length - passed + (failed && results.every((r) => r.ok) ? 1 : 0)} failed`);
process.stdout.write(`done ${failed ? 'failed' : 'passed'}\n`);
process.exit(failed ? 1 : 0);
