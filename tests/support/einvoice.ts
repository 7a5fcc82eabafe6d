import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The official EN 16931 validation rules (CEN/TC 434, release 1.3.16, EUPL 1.2: tests/einvoice-rules)
 * run with SaxonJS. The XSLT is compiled to a SEF once (about 20 s) into node_modules/.cache, keyed
 * by the XSLT's hash, so later runs start at once; a document then takes about half a second.
 */
const root = join(__dirname, '..', '..');
const rulesDir = join(root, 'tests', 'einvoice-rules');
const cacheDir = join(root, 'node_modules', '.cache', 'einvoice');

export type Syntax = 'ubl' | 'cii';

export interface FailedAssert {
  id: string;
  flag: string;
  location: string;
  text: string;
}

// SaxonJS ships no types; this is the part of its API the tests use.
interface SaxonJS {
  transform(
    options: { stylesheetFileName: string; sourceText: string; destination: 'serialized' },
    mode: 'sync',
  ): { principalResult: string };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const saxon = require('saxon-js') as SaxonJS;

function stylesheet(syntax: Syntax): string {
  const xslt = join(rulesDir, syntax, 'xslt', `EN16931-${syntax.toUpperCase()}-validation.xslt`);
  const hash = createHash('sha256').update(readFileSync(xslt)).digest('hex').slice(0, 16);
  const sef = join(cacheDir, `${syntax}-${hash}.sef.json`);
  if (!existsSync(sef)) {
    mkdirSync(cacheDir, { recursive: true });
    // Compiled beside its final name and renamed, so a parallel test file never reads half a file.
    const partial = `${sef}.${process.pid}.tmp`;
    execFileSync(process.execPath, [require.resolve('xslt3/xslt3.js'), `-xsl:${xslt}`, `-export:${partial}`, '-nogo'], { stdio: 'pipe' });
    renameSync(partial, sef);
  }
  return sef;
}

/** Compiles (or finds) the rules of both syntaxes; call it in beforeAll with a long timeout. */
export function prepareRules(): void {
  stylesheet('ubl');
  stylesheet('cii');
}

const attr = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1] ?? '';

/** Every failed assert of the EN 16931 rules for this document; fatal ones make it invalid. */
export function validate(syntax: Syntax, xml: string): FailedAssert[] {
  const svrl = saxon.transform(
    { stylesheetFileName: stylesheet(syntax), sourceText: xml, destination: 'serialized' },
    'sync',
  ).principalResult;
  const failures: FailedAssert[] = [];
  for (const m of svrl.matchAll(/<svrl:failed-assert\b([^>]*)>([\s\S]*?)<\/svrl:failed-assert>/g)) {
    const head = m[1] ?? '';
    const text = /<svrl:text>([\s\S]*?)<\/svrl:text>/.exec(m[2] ?? '')?.[1] ?? '';
    failures.push({ id: attr(head, 'id'), flag: attr(head, 'flag'), location: attr(head, 'location'), text: text.trim() });
  }
  return failures;
}

/** The fatal failures, printed one a line, or '' when the document passes: `expect(fatal(...)).toBe('')` shows them all. */
export function fatalFailures(syntax: Syntax, xml: string): string {
  return validate(syntax, xml)
    .filter((f) => f.flag === 'fatal')
    .map((f) => `${f.id} at ${f.location}: ${f.text}`)
    .join('\n');
}
