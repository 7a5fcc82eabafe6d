import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { domainPrefix, knownPaths, serviceNames } from '@bo/contracts';
import { startTestSystem, type TestSystem } from '../support/system';

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

    const response = await page.goto(`${sys.url}/docs`, { waitUntil: 'networkidle0' });
    expect(response?.status()).toBe(200);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });

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
  });

  it('serves the AsyncAPI document of the events beside it', async () => {
    const res = await fetch(`${sys.url}/asyncapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { asyncapi: string; channels: Record<string, { address: string }> };
    expect(doc.asyncapi).toBe('3.0.0');
    expect(doc.channels['invoicing.invoice.validated']?.address).toBe('invoicing.invoice.validated');
  });
});
