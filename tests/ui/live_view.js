// The live view in a real browser: Debian's chromium driven by
// playwright-core (never a downloaded browser). Run by tests/ui/live_view.sh,
// which starts the demo daemon and sets:
//   API      host:port of its API (the page is GET /)
//   OTLP     host:port of its OTLP/HTTP receiver
//   TOKEN    the API's bearer token
//   EVENTS   a JSON file: [{"case_id", "record": OTLP log record}] of one
//            more event for a case the daemon has (posted during the test)
//   OUT      where the screenshots go (one per step)
//   MANY     a JSON file of OTLP log records, one per new case (10,000)
// Exits 0 when every step passed; prints one line per step.
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');

const api = process.env.API;
const otlp = process.env.OTLP;
const token = process.env.TOKEN;
const out = process.env.OUT;
const base = 'http://' + api;
let step = 0;

function ok(what) {
  console.log('ok   ' + what);
}
function fail(what) {
  throw new Error(what);
}
async function shot(page, name) {
  step++;
  const file = path.join(out, String(step).padStart(2, '0') + '-' + name + '.png');
  await page.screenshot({ path: file, fullPage: true });
}

async function postLogs(records) {
  const body = {
    resourceLogs: [{
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'orderflow' } }] },
      scopeLogs: [{ scope: { name: 'orderflow' }, logRecords: records }],
    }],
  };
  const r = await fetch('http://' + otlp + '/v1/logs', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  if (r.status !== 200) fail('OTLP/HTTP answered ' + r.status);
}

async function main() {
  fs.mkdirSync(out, { recursive: true });
  // The page is behind the API's token like every other route.
  const bare = await fetch(base + '/');
  if (bare.status !== 401) fail('GET / without the token: ' + bare.status + ', want 401');
  ok('GET / without the bearer token: 401');

  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  try {
    const context = await browser.newContext({
      extraHTTPHeaders: { Authorization: 'Bearer ' + token },
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(String(e)));
    const offsite = [];
    page.on('request', (r) => { if (!r.url().startsWith(base + '/')) offsite.push(r.url()); });

    // 1. The page, its policy, the live cases newest first.
    const resp = await page.goto(base + '/');
    const csp = resp.headers()['content-security-policy'] || '';
    if (!csp.includes("default-src 'none'") || !csp.includes("script-src 'self'")) fail('CSP: ' + csp);
    await page.waitForSelector('[data-testid="case-row"]');
    const rows = page.locator('[data-testid="case-list"] [data-testid="case-row"]');
    const n = await rows.count();
    if (n < 2) fail('case list: ' + n + ' rows');
    await shot(page, 'cases');
    ok('page loads under its Content-Security-Policy; ' + n + ' live cases listed');

    // 2. Search a case by part of its id.
    const events = JSON.parse(fs.readFileSync(process.env.EVENTS, 'utf8'));
    const target = events[0].case_id;
    const part = target.slice(4, 10);
    await page.fill('[data-testid="case-search"]', part);
    await page.waitForFunction((p) => {
      const r = [...document.querySelectorAll('[data-testid="case-row"]')];
      return r.length > 0 && r.every((x) => x.dataset.caseId.includes(p));
    }, part);
    const found = page.locator('[data-testid="case-row"][data-case-id="' + target + '"]');
    if ((await found.count()) !== 1) fail('search "' + part + '" does not list ' + target);
    await shot(page, 'search');
    ok('search "' + part + '" lists ' + target);

    // 3. Open it: its timeline, the predictions after each event, and
    // whether the next event proved them right.
    await found.click();
    await page.waitForSelector('[data-testid="timeline"] [data-testid="event-row"] [data-testid="prediction"][data-rank="1"]');
    const seqs = await page.$$eval('[data-testid="event-row"]', (r) => r.map((x) => Number(x.dataset.seq)));
    const last = Math.max(...seqs);
    const judged = await page.$$eval('[data-testid="event-row"][data-hit]', (r) => r.length);
    if (judged < seqs.length - 1) fail('only ' + judged + ' of ' + seqs.length + ' events say whether the next proved them right');
    const preds = await page.locator('[data-testid="event-row"][data-seq="' + last + '"] [data-testid="prediction"]').count();
    if (preds < 1) fail('no prediction after the latest event');
    const link = await page.locator('[data-testid="event-row"][data-seq="' + last + '"] [data-testid="prediction"][data-rank="1"] a.loc').getAttribute('href');
    if (!link || !link.startsWith('https://git.example.com/orderflow/blob/v1.2/')) fail('source link: ' + link);
    await shot(page, 'case');
    ok('case ' + target + ': ' + seqs.length + ' events up to #' + last + ', ' + preds + ' predictions after the latest, links to source');

    // 4. One more event, posted now: it appears without a reload, and the
    // previous prediction is judged by it.
    await page.evaluate(() => { window.__same_page = true; });
    await postLogs([events[0].record]);
    await page.waitForSelector('[data-testid="event-row"][data-seq="' + (last + 1) + '"] [data-testid="prediction"]', { timeout: 15000 });
    const hit = await page.getAttribute('[data-testid="event-row"][data-seq="' + last + '"]', 'data-hit');
    if (hit === null) fail('the previous prediction was not judged by the new event');
    if (!(await page.evaluate(() => window.__same_page === true))) fail('the page was reloaded');
    await shot(page, 'live-event');
    // The README's picture: what a screen shows.
    await page.screenshot({ path: path.join(out, 'live-view.png') });
    ok('event #' + (last + 1) + ' appeared without a reload; the prediction before it: ' + (hit === '0' ? 'a miss' : 'hit at rank ' + hit));

    // 5. Explain a prediction on demand.
    await page.click('[data-testid="event-row"][data-seq="' + (last + 1) + '"] [data-testid="prediction"][data-rank="1"] [data-testid="explain"]');
    await page.waitForSelector('[data-testid="explanation"]');
    await shot(page, 'explain');
    ok('explanation path: ' + (await page.textContent('[data-testid="explanation"]')).split('\n')[0].slice(0, 60));

    // 6. The hit rate, and its chart.
    await page.waitForFunction(() => /^\d+(\.\d)?%$/.test(document.querySelector('[data-testid="hit-rate"]').textContent));
    const rate = await page.textContent('[data-testid="hit-rate"]');
    const lines = await page.locator('[data-testid="hit-rate-chart"] path, [data-testid="hit-rate-chart"] circle').count();
    if (lines < 1) fail('no line in the hit-rate chart');
    await shot(page, 'health');
    ok('hit rate (top 1, last 5 min) ' + rate + ', charted');

    // 7. 10,000 live cases: the list stays one page, the page answers.
    await page.fill('[data-testid="case-search"]', '');
    const many = JSON.parse(fs.readFileSync(process.env.MANY, 'utf8'));
    for (let i = 0; i < many.length; i += 1000) await postLogs(many.slice(i, i + 1000));
    const t0 = Date.now();
    await page.waitForFunction(() => {
      const t = document.getElementById('case-total').textContent;
      return Number((t.match(/\d+/) || ['0'])[0]) >= 10000;
    }, null, { timeout: 30000 });
    const listed = await page.locator('[data-testid="case-row"]').count();
    if (listed > 50) fail(listed + ' rows in the DOM: the list is not paged');
    let worst = 0;
    for (let i = 0; i < 10; i++) {
      const s = Date.now();
      await page.evaluate(() => document.querySelectorAll('[data-testid="case-row"]').length);
      worst = Math.max(worst, Date.now() - s);
      await page.waitForTimeout(100);
    }
    if (worst > 500) fail('the page took ' + worst + ' ms to answer with 10,000 live cases');
    const s0 = Date.now();
    const probe = many[many.length - 1].attributes[0].value.stringValue;
    await page.fill('[data-testid="case-search"]', probe);
    await page.waitForSelector('[data-testid="case-row"][data-case-id="' + probe + '"]');
    const searchMs = Date.now() - s0;
    if (searchMs > 3000) fail('search among 10,000 cases took ' + searchMs + ' ms');
    await page.fill('[data-testid="case-search"]', '');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="case-row"]').length === 50);
    await page.click('[data-testid="page-older"]');
    await page.waitForFunction(() => /page 2/.test(document.getElementById('page-info').textContent));
    await shot(page, 'ten-thousand');
    ok('10,000 live cases: ' + listed + ' rows a page, listed in ' + (Date.now() - t0) +
      ' ms, the page answers within ' + worst + ' ms, search in ' + searchMs + ' ms, page 2 reached');

    if (offsite.length) fail('requests to elsewhere: ' + offsite.join(', '));
    const real = problems.filter((p) => !/Failed to load resource.*40[14]/.test(p));
    if (real.length) fail('console errors: ' + real.join(' | '));
    ok('nothing fetched from elsewhere, no console error');
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.log('FAIL ' + e.message);
  process.exit(1);
});
