import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { ThreadPool } from '../thread-pool';

/**
 * Validation of a received e-invoice by the official rules, at run time: the EN 16931 rules of its
 * syntax (CEN/TC 434, packages/documents/einvoice-rules/{ubl,cii}/xslt) for every document, plus the
 * Peppol BIS Billing 3.0 rules (einvoice-rules/peppol/xslt) when its CustomizationID (BT-24) names
 * Peppol. The rules are Schematron compiled to XSLT; SaxonJS runs them.
 *
 * - **Compiled once, on first use.** SaxonJS runs a SEF (its compiled stylesheet); xslt3 compiles the
 *   XSLT into one (20 to 60 s per rule set) in a child process, into a cache directory the process
 *   can write (`EINVOICE_RULES_CACHE`, else node_modules/.cache/einvoice beside saxon-js, which the
 *   tests share, else the system's temporary directory), named by the XSLT's hash, so a new release
 *   of the rules compiles anew. A lock file keeps two processes from compiling one set twice. The
 *   cache is never committed.
 * - **Off the event loop.** A transform is one synchronous stretch (a tenth of a second for a small
 *   invoice, seconds for a large one), so it runs on a pool of worker threads (../thread-pool.ts;
 *   `EINVOICE_THREADS`, default 1); a job past `EINVOICE_RULES_TIMEOUT_MS` (default 60 s) ends its
 *   thread and fails. Where the thread's built module is absent (tests run from sources) or with
 *   `EINVOICE_THREADS=0`, it runs in the calling thread.
 * - **Only XML the safe parser accepted** (read/xml.ts: no DOCTYPE, bounded) is given to SaxonJS,
 *   whose own parser is not hardened: callers validate what `readEInvoice` has read.
 */

export type RuleSet = 'en16931-ubl' | 'en16931-cii' | 'peppol-ubl' | 'peppol-cii';

export interface RuleFinding {
  /** The rule's id (BR-CO-10, PEPPOL-EN16931-R001, …). */
  rule: string;
  message: string;
  /** The XPath of the element the rule fired on. */
  location: string;
}

export interface ValidationReport {
  /** The rule sets that ran, in order. */
  rule_sets: RuleSet[];
  /** Fatal asserts: the document is not a valid e-invoice. */
  fatal: RuleFinding[];
  /** Warnings (flag `warning` or `information`): kept, not refusing. */
  warnings: RuleFinding[];
}

export const PEPPOL_BIS3_CUSTOMIZATION = 'urn:fdc:peppol.eu:2017:poacc:billing:3.0';

const rulesDir = join(__dirname, '..', '..', 'einvoice-rules');
const XSLT: Record<RuleSet, string> = {
  'en16931-ubl': join(rulesDir, 'ubl', 'xslt', 'EN16931-UBL-validation.xslt'),
  'en16931-cii': join(rulesDir, 'cii', 'xslt', 'EN16931-CII-validation.xslt'),
  'peppol-ubl': join(rulesDir, 'peppol', 'xslt', 'PEPPOL-EN16931-UBL.xsl'),
  'peppol-cii': join(rulesDir, 'peppol', 'xslt', 'PEPPOL-EN16931-CII.xsl'),
};
/** The cache names the test support (tests/support/einvoice.ts) uses for the EN 16931 sets, so one compile serves both. */
const CACHE_NAME: Record<RuleSet, string> = {
  'en16931-ubl': 'ubl',
  'en16931-cii': 'cii',
  'peppol-ubl': 'peppol-ubl',
  'peppol-cii': 'peppol-cii',
};

/** The rule sets a document of this syntax and CustomizationID is held to. */
export function ruleSetsFor(syntax: 'ubl' | 'cii', customizationId: string | undefined): RuleSet[] {
  const peppol = (customizationId ?? '').includes(PEPPOL_BIS3_CUSTOMIZATION);
  return syntax === 'ubl'
    ? ['en16931-ubl', ...(peppol ? ['peppol-ubl' as const] : [])]
    : ['en16931-cii', ...(peppol ? ['peppol-cii' as const] : [])];
}

async function writable(dir: string): Promise<boolean> {
  try {
    await mkdir(dir, { recursive: true });
    const probe = join(dir, `.probe-${process.pid}`);
    await (await open(probe, 'w')).close();
    await rm(probe, { force: true });
    return true;
  } catch {
    return false;
  }
}

let cacheDirChosen: Promise<string> | undefined;
function cacheDir(): Promise<string> {
  cacheDirChosen ??= (async () => {
    const configured = process.env.EINVOICE_RULES_CACHE;
    if (configured) return configured;
    const saxonDir = dirname(require.resolve('saxon-js/package.json'));
    const beside = join(dirname(saxonDir), '.cache', 'einvoice');
    return (await writable(beside)) ? beside : join(tmpdir(), 'bo-einvoice-rules');
  })();
  return cacheDirChosen;
}

const run = promisify(execFile);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Compiles the XSLT into `sef` unless it is there, or another process is compiling it (then waits for it). */
async function compileOnce(xslt: string, sef: string): Promise<void> {
  const lock = `${sef}.lock`;
  for (;;) {
    if (existsSync(sef)) return;
    try {
      await (await open(lock, 'wx')).close();
      break;
    } catch {
      const age = Date.now() - ((await stat(lock).catch(() => undefined))?.mtimeMs ?? Date.now());
      if (age > 300_000) await rm(lock, { force: true });
      else await pause(250);
    }
  }
  try {
    if (existsSync(sef)) return;
    const partial = `${sef}.${process.pid}.tmp`;
    await run(process.execPath, [require.resolve('xslt3/xslt3.js'), `-xsl:${xslt}`, `-export:${partial}`, '-nogo'], {
      maxBuffer: 16 * 1024 * 1024,
    });
    await rename(partial, sef);
  } finally {
    await rm(lock, { force: true });
  }
}

const sefPaths = new Map<RuleSet, Promise<string>>();
/** The path of the rule set's SEF, compiled first if no process has yet. */
export function compiledRules(set: RuleSet): Promise<string> {
  let known = sefPaths.get(set);
  if (!known) {
    known = (async () => {
      const hash = createHash('sha256')
        .update(await readFile(XSLT[set]))
        .digest('hex')
        .slice(0, 16);
      const sef = join(await cacheDir(), `${CACHE_NAME[set]}-${hash}.sef.json`);
      await compileOnce(XSLT[set], sef);
      return sef;
    })();
    known.catch(() => sefPaths.delete(set));
    sefPaths.set(set, known);
  }
  return known;
}

/** Compiles (or finds) every rule set; a service may call it at start so the first import does not wait. */
export async function prepareEInvoiceRules(): Promise<void> {
  for (const set of Object.keys(XSLT) as RuleSet[]) await compiledRules(set);
}

// ---- the transform, on a thread ----

export interface RulesJob {
  id: number;
  sef: string;
  xml: string;
}
export type RulesJobResult = { id: number; svrl: string } | { id: number; error: string };

// SaxonJS ships no types; this is the part of its API used here.
interface SaxonJS {
  transform(
    options: { stylesheetInternal: unknown; sourceText: string; destination: 'serialized' },
    mode: 'sync',
  ): { principalResult: string };
}

const parsedSefs = new Map<string, unknown>();
/** One transform, synchronous: what the thread runs (and the calling thread when there is none). */
export async function runRules(job: RulesJob): Promise<RulesJobResult> {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const saxon = require('saxon-js') as SaxonJS;
    let sef = parsedSefs.get(job.sef);
    if (!sef) {
      sef = JSON.parse(await readFile(job.sef, 'utf8')) as unknown;
      parsedSefs.set(job.sef, sef);
    }
    const svrl = saxon.transform({ stylesheetInternal: sef, sourceText: job.xml, destination: 'serialized' }, 'sync').principalResult;
    return { id: job.id, svrl };
  } catch (err) {
    return { id: job.id, error: err instanceof Error ? err.message : String(err) };
  }
}

let pool: ThreadPool<Omit<RulesJob, 'id'>, RulesJobResult> | null | undefined;
function thePool(): ThreadPool<Omit<RulesJob, 'id'>, RulesJobResult> | null {
  if (pool === undefined) {
    const configured = process.env.EINVOICE_THREADS;
    const size = configured !== undefined && configured !== '' ? Number(configured) : 1;
    const timeout = Number(process.env.EINVOICE_RULES_TIMEOUT_MS ?? '') || 60_000;
    // From dist/einvoice this is the sibling; from src/einvoice (tests run from sources) the built one.
    const script = [join(__dirname, 'validate-thread.js'), join(__dirname, '..', '..', 'dist', 'einvoice', 'validate-thread.js')].find(
      (p) => existsSync(p),
    );
    pool =
      Number.isInteger(size) && size > 0 && script
        ? new ThreadPool({
            spawn: () => new Worker(script),
            size,
            timeoutMs: timeout,
            lost: (code) => `the e-invoice rules thread stopped (exit code ${code}): more than ${timeout} ms, or it failed`,
          })
        : null;
  }
  return pool;
}

const attr = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1] ?? '';
const unescape = (s: string) =>
  s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e] ?? '');

/** The failed asserts of an SVRL report, fatal ones apart. */
export function svrlFindings(svrl: string): { fatal: RuleFinding[]; warnings: RuleFinding[] } {
  const fatal: RuleFinding[] = [];
  const warnings: RuleFinding[] = [];
  for (const m of svrl.matchAll(
    /<svrl:(?:failed-assert|successful-report)\b([^>]*)>([\s\S]*?)<\/svrl:(?:failed-assert|successful-report)>/g,
  )) {
    const head = m[1] ?? '';
    const text = /<svrl:text>([\s\S]*?)<\/svrl:text>/.exec(m[2] ?? '')?.[1] ?? '';
    const finding = {
      rule: attr(head, 'id'),
      message: unescape(text.replace(/\s+/g, ' ').trim()),
      location: unescape(attr(head, 'location')),
    };
    (attr(head, 'flag') === 'fatal' ? fatal : warnings).push(finding);
  }
  return { fatal, warnings };
}

/**
 * Runs the rule sets the document is held to (ruleSetsFor) and collects their findings. The XML
 * must be what the safe reader accepted.
 */
export async function validateEInvoice(syntax: 'ubl' | 'cii', xml: string, customizationId: string | undefined): Promise<ValidationReport> {
  const sets = ruleSetsFor(syntax, customizationId);
  const report: ValidationReport = { rule_sets: sets, fatal: [], warnings: [] };
  for (const set of sets) {
    const sef = await compiledRules(set);
    const p = thePool();
    const result = p ? await p.run({ sef, xml }) : await runRules({ id: 0, sef, xml });
    if ('error' in result) throw new Error(`The ${set} rules failed to run: ${result.error}`);
    const found = svrlFindings(result.svrl);
    report.fatal.push(...found.fatal);
    report.warnings.push(...found.warnings);
  }
  return report;
}
