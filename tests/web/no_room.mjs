// The page refused for want of room, in a real headless Chromium against a real
// `annabella serve` started by tests/strangers.rs (every control slot held): the page must say
// so in words and log in by itself once a place is free. It prints `full` when it has said so,
// waits for `freed` on standard input, and prints `done passed MS` (the time from `freed` to
// being logged in) or `done failed`.
//
// Environment: WEB_URL, TOKEN (white's), CHROMIUM (the browser binary).
import { chromium } from 'playwright-core';
import { createInterface } from 'node:readline';

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`no_room.mjs: the environment variable ${k} is not set (tests/strangers.rs sets it)`);
  return v;
};

const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once('line', resolve));

async function waitFor(what, fn, timeout) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no ${what} within ${timeout} ms (last: ${JSON.stringify(last)})`);
}

async function run(browser) {
  const page = await (await browser.newContext()).newPage();
  await page.goto(env('WEB_URL'));
  await page.locator('#token').fill(env('TOKEN'));
  await page.keyboard.press('Enter');
  const said = await waitFor('the words for no room', async () => {
    const t = await page.locator('#login-error').textContent();
    return t && /keinen Platz/.test(t) && /von selbst erneut/.test(t) ? t : null;
  }, 15000);
  console.error(`the page said: ${said}`);
  process.stdout.write('full\n');
  await nextLine();
  const freed = Date.now();
  await waitFor('the login once a place was free', async () => {
    const t = await page.locator('#connection').textContent();
    return t && t.startsWith('Verbunden als Weiß') ? t : null;
  }, 15000);
  return Date.now() - freed;
}

let outcome = 'failed';
try {
  const browser = await chromium.launch({
    executablePath: env('CHROMIUM'),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    outcome = `passed ${await run(browser)}`;
  } finally {
    await browser.close();
  }
} catch (e) {
  console.error('FAIL', e.message);
}
process.stdout.write(`done ${outcome}\n`);
process.exit(outcome.startsWith('passed') ? 0 : 1);
