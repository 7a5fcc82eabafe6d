import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join, relative } from 'node:path';
import { validateXML, type XMLFileInfo } from 'xmllint-wasm';

/**
 * An e-invoice is checked twice: against its syntax's official XSD (schemaFailures) and against the
 * EN 16931 business rules (fatalFailures); einvoiceFailures does both.
 *
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

/**
 * The official XSDs (tests/einvoice-rules/xsd, with their notices): UBL 2.1 (OASIS; Invoice or
 * CreditNote after the document's root element), UN/CEFACT CII D16B (uncoupled code lists, as the
 * EN 16931 artifacts ship it) and the Factur-X 1.09 EN 16931 profile, the stricter subset of CII a
 * Factur-X reader checks the factur-x.xml of a PDF against.
 */
export type Schema = 'ubl' | 'cii' | 'facturx';

const xsdDir = join(rulesDir, 'xsd');
const schemaMain: Record<Schema, string> = {
  ubl: 'ubl/maindoc/UBL-Invoice-2.1.xsd',
  cii: 'cii/CrossIndustryInvoice_100pD16B.xsd',
  facturx: 'facturx-en16931/Factur-X_EN16931.xsd',
};
const ublCreditNote = 'ubl/maindoc/UBL-CreditNote-2.1.xsd';

let schemaFiles: XMLFileInfo[] | undefined;
/** Every XSD under xsd/, by its path there, so that relative imports (`../common/…`) resolve as on disk. */
function xsdFiles(): XMLFileInfo[] {
  if (!schemaFiles) {
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
    schemaFiles = walk(xsdDir)
      .filter((f) => f.endsWith('.xsd'))
      .map((f) => ({ fileName: `xsd/${relative(xsdDir, f)}`, contents: readFileSync(f, 'utf8') }));
  }
  return schemaFiles;
}

/** The schema errors of the document, one a line (xmllint's messages), or '' when it is valid. */
export async function schemaFailures(schema: Schema, xml: string): Promise<string> {
  const root = /<(?:[\w-]+:)?(\w+)[\s>]/.exec(xml.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, ''))?.[1];
  const main = schema === 'ubl' && root === 'CreditNote' ? ublCreditNote : schemaMain[schema];
  const files = xsdFiles();
  const mainFile = files.find((f) => f.fileName === `xsd/${main}`);
  if (!mainFile) throw new Error(`no ${main} under ${xsdDir}`);
  const result = await validateXML({
    xml: [{ fileName: 'document.xml', contents: xml }],
    schema: [mainFile],
    preload: files.filter((f) => f !== mainFile),
    // The UBL schemas (2.4 MB of aggregate components) need more than the default 32 MiB.
    maxMemoryPages: 16 * 1024,
  });
  if (result.valid) return '';
  const errors = result.errors.map((e) => e.rawMessage.trim()).filter(Boolean);
  return errors.length > 0 ? errors.join('\n') : result.rawOutput.trim() || 'invalid';
}

/**
 * Schema errors and fatal EN 16931 rules together, '' when the document is a valid e-invoice: UBL
 * against UBL 2.1; CII against CII D16B, and, for a Factur-X attachment, the Factur-X EN 16931 XSD too.
 */
export async function einvoiceFailures(syntax: Syntax, xml: string, options: { facturx?: boolean } = {}): Promise<string> {
  const schemas: Schema[] = syntax === 'ubl' ? ['ubl'] : options.facturx ? ['cii', 'facturx'] : ['cii'];
  const found: string[] = [];
  for (const schema of schemas) {
    const errors = await schemaFailures(schema, xml);
    if (errors) found.push(`${schema} XSD: ${errors}`);
  }
  const rules = fatalFailures(syntax, xml);
  if (rules) found.push(`EN 16931 rules: ${rules}`);
  return found.join('\n');
}
