import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { domainPrefix, knownPaths, operationsByName, resolveCandidates, serviceNames } from '@bo/contracts';
import { eventually, startTestSystem, type TestSystem } from '../support/system';

/** Screenshots land here (gitignored), so a failed or passed run can be looked at. */
const ARTIFACTS = join(__dirname, '..', '..', 'artifacts');

/** Debian's chromium (`.ci/run` installs it); CHROMIUM_PATH points elsewhere. */
function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' })
      .trim()
      .split('\n')[0] as string;
  } catch {
    throw new Error("No chromium found: install Debian's `chromium` package (apt-get install -y chromium) or set CHROMIUM_PATH");
  }
}

/** Clicks the first button under `selector` whose text is `text`. */
async function clickButton(page: Page, selector: string, text: string): Promise<void> {
  for (const button of await page.$$(selector)) {
    if ((await button.evaluate((b) => b.textContent?.trim())) === text) return void (await button.click());
  }
  throw new Error(`No button "${text}" under ${selector}`);
}

describe('API reference page at /docs, in a real browser', () => {
  let sys: TestSystem;
  let browser: Browser;
  beforeAll(async () => {
    sys = await startTestSystem();
    // No sandbox: CI and containers run as root, where Chromium's sandbox refuses to start.
    browser = await puppeteer.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sys?.stop();
  });
  // A page left open keeps its expanded schemas rendering and slows the next test's page on a loaded machine.
  afterEach(async () => {
    for (const page of (await browser?.pages()) ?? []) await page.close();
  });

  /** Opens /docs and waits for the operations to render: the rendered list is the condition, not an idle network. */
  async function openDocs(): Promise<Page> {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${sys.url}/docs`, { waitUntil: 'load', timeout: 90_000 });
    await page.waitForSelector('.opblock-summary-path', { timeout: 60_000 });
    return page;
  }

  it('renders the operations of all four domains from /openapi.json, loading nothing from outside the gateway', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    // Offline means every request the page makes goes to the gateway: anything else is refused and recorded.
    const outside: string[] = [];
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = request.url();
      if (url.startsWith(sys.url) || url.startsWith('data:')) return void request.continue();
      outside.push(url);
      void request.abort();
    });
    const failed: string[] = [];
    page.on('requestfailed', (request) => {
      if (request.url().startsWith(sys.url)) failed.push(request.url());
    });

    // Idle network, so every request the page makes has been made (and recorded) before the checks below.
    const response = await page.goto(`${sys.url}/docs`, { waitUntil: 'networkidle0', timeout: 90_000 });
    expect(response?.status()).toBe(200);
    await page.waitForSelector('.opblock-summary-path', { timeout: 60_000 });

    const shown = await page.$$eval('.opblock-summary-path', (els) =>
      els.map((el) => (el.getAttribute('data-path') ?? el.textContent ?? '').replace(/\u200b/g, '').trim()),
    );
    const tags = await page.$$eval('.opblock-tag', (els) => els.map((el) => el.getAttribute('data-tag')));
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'api-docs.png'), fullPage: true });

    for (const service of serviceNames) {
      expect([service, shown.some((path) => path.startsWith(`${domainPrefix[service]}/`))]).toEqual([service, true]);
    }
    expect(tags).toEqual(expect.arrayContaining([...serviceNames]));
    expect(shown.sort()).toEqual(knownPaths().sort());
    expect(outside).toEqual([]);
    expect(failed).toEqual([]);
  }, 180_000);

  it('shows an operation that shares its path once, at its canonical path, among the alternatives of that path', async () => {
    const adjust = operationsByName.get('catalog.stock.adjust')!;
    const home = `#operations-catalog-${adjust.paths[0]!.replace(/\W+/g, '_').replace(/^_/, '')}`;
    const page = await openDocs();
    // Collapsed, no path's line tells it: its path has several operations and lists their names.
    const lines = await page.$$eval(
      '.opblock-summary',
      (els, text) => els.filter((el) => el.textContent!.includes(text)).length,
      adjust.summary,
    );
    expect(lines).toBe(0);
    // The paths that accept it opened (every /inventory path: it is domain-wide), so their descriptions are on the page.
    const accepting = knownPaths().filter((p) => resolveCandidates(p).includes(adjust));
    expect(accepting.length).toBeGreaterThan(1);
    for (const path of accepting)
      await page.click(`#operations-catalog-${path.replace(/\W+/g, '_').replace(/^_/, '')} .opblock-summary-control`);
    await eventually(async () => expect((await page.$$('.opblock-body')).length).toBe(accepting.length), {
      timeoutMs: 60_000,
      intervalMs: 200,
    });

    // The summary is told once on the whole page, in the block of its canonical path.
    const told = await page.$$eval(
      '.opblock',
      (blocks, text) => blocks.map((b) => [b.id, b.textContent!.split(text).length - 1]),
      adjust.summary,
    );
    expect(told.filter(([, n]) => n !== 0)).toEqual([[home.slice(1), 1]]);
    // The other /inventory paths accept it too and say so, pointing at its canonical path.
    const elsewhere = await page.$$eval(
      '.opblock',
      (blocks, link) =>
        blocks
          .filter((b) => b.querySelector(`.opblock-description-wrapper a[href="${link}"]`))
          .map((b) => b.querySelector('.opblock-summary-path')!.getAttribute('data-path')),
      `#/catalog/${home.slice('#operations-catalog-'.length)}`,
    );
    expect(elsewhere.sort()).toEqual(
      knownPaths()
        .filter((p) => p.startsWith('/inventory/') && p !== adjust.paths[0])
        .sort(),
    );

    // Its block offers each operation of the path as an example of the request and of the reply; choosing one shows it.
    const alternatives = resolveCandidates(adjust.paths[0]!)
      .map((op) => op.name)
      .sort();
    const offered = await page.$$eval(`${home} select.examples-select-element`, (selects) =>
      selects.map((s) => [...s.querySelectorAll('option')].map((o) => o.getAttribute('value')).sort()),
    );
    expect(offered).toEqual([alternatives, alternatives]);
    await page.select(`${home} .opblock-section-request-body select.examples-select-element`, adjust.name);
    await eventually(
      async () =>
        expect(await page.$eval(`${home} .opblock-section-request-body .highlight-code`, (el) => el.textContent)).toContain(
          '"stock_adjustment"',
        ),
      { timeoutMs: 10_000, intervalMs: 100 },
    );

    // And its schema shows them as the alternatives of one `oneOf`, each under its operation's name.
    await clickButton(page, `${home} .opblock-section-request-body button`, 'Schema');
    await page.waitForSelector(`${home} .opblock-section-request-body .json-schema-2020-12`, { timeout: 10_000 });
    await clickButton(page, `${home} .opblock-section-request-body button`, 'Expand all');
    await eventually(
      async () =>
        expect((await page.$$(`${home} .opblock-section-request-body .json-schema-2020-12__title`)).length).toBeGreaterThan(
          alternatives.length,
        ),
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    const titles = await page.$$eval(`${home} .opblock-section-request-body .json-schema-2020-12__title`, (els) =>
      els.map((el) => el.textContent!.trim()).filter((t) => /^#\d+ /.test(t)),
    );
    const named = titles.map((t) => t.replace(/^#\d+ /, '').toLowerCase()).filter((t) => alternatives.includes(t));
    expect(named.sort()).toEqual(alternatives);
    await page.$eval(home, (el) => el.scrollIntoView());
    await page.screenshot({ path: join(ARTIFACTS, 'api-docs-shared-path.png'), fullPage: false });
  }, 180_000);

  it('names each alternative of a path chosen by a flag or a field, whose exclusions stand under allOf', async () => {
    const path = '/inventory/editproduct';
    const home = `#operations-catalog-${path.replace(/\W+/g, '_').replace(/^_/, '')}`;
    const alternatives = resolveCandidates(path)
      .map((op) => op.name)
      .sort();
    const page = await openDocs();
    await page.click(`${home} .opblock-summary-control`);
    await page.waitForSelector(`${home} .opblock-section-request-body`, { timeout: 20_000 });
    // Each operation whose canonical path this is offers its example (catalog.stock.adjust offers its own at its own path).
    const offered = await page.$$eval(`${home} .opblock-section-request-body select.examples-select-element option`, (options) =>
      options.map((o) => o.getAttribute('value')),
    );
    const own = resolveCandidates(path)
      .filter((op) => op.paths[0] === path)
      .map((op) => op.name)
      .sort();
    expect([...offered].sort()).toEqual(own);
    await clickButton(page, `${home} .opblock-section-request-body button`, 'Schema');
    await page.waitForSelector(`${home} .opblock-section-request-body .json-schema-2020-12`, { timeout: 10_000 });
    await clickButton(page, `${home} .opblock-section-request-body button`, 'Expand all');
    const titled = async () =>
      (
        await page.$$eval(`${home} .opblock-section-request-body .json-schema-2020-12__title`, (els) =>
          els.map((el) => el.textContent!.trim()).filter((t) => /^#\d+ /.test(t)),
        )
      )
        .map((t) => t.replace(/^#\d+ /, '').toLowerCase())
        .filter((t) => alternatives.includes(t));
    await eventually(async () => expect([...new Set(await titled())].sort()).toEqual(alternatives), { timeoutMs: 10_000, intervalMs: 100 });
    await page.$eval(home, (el) => el.scrollIntoView());
    await page.screenshot({ path: join(ARTIFACTS, 'api-docs-flag-path.png'), fullPage: false });
  }, 180_000);

  it('serves the AsyncAPI document of the events beside it', async () => {
    const res = await fetch(`${sys.url}/asyncapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { asyncapi: string; channels: Record<string, { address: string }> };
    expect(doc.asyncapi).toBe('3.0.0');
    expect(doc.channels['invoicing.invoice.validated']?.address).toBe('invoicing.invoice.validated');
  });
});
