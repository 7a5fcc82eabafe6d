import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { validateXML, type XMLFileInfo } from 'xmllint-wasm';

/**
 * An e-invoice is checked twice: against its syntax's official XSD (schemaFailures) and against the
 * EN 16931 business rules (fatalFailures); einvoiceFailures does both.
 *
 * The official EN 16931 validation rules (CEN/TC 434, release 1.3.16, EUPL 1.2: packages/documents/einvoice-rules)
 * run with SaxonJS. The XSLT is compiled to a SEF once (about 20 s) into node_modules/.cache, keyed
 * by the XSLT's hash, so later runs start at once; a document then takes a tenth of a second. The
 * XSD check reads the schemas (2.4 MB for UBL) each time it runs, a third of a second, so many
 * documents are checked in one run (einvoiceFailuresOfMany). The Peppol BIS Billing 3.0 rules
 * (RuleSet `peppol-ubl`, `peppol-cii`) are run the same way, for documents marked `peppol`.
 */
const root = join(__dirname, '..', '..');
const rulesDir = join(root, 'packages', 'documents', 'einvoice-rules');
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
    options: { stylesheetInternal: unknown; sourceText: string; destination: 'serialized' },
    mode: 'sync',
  ): { principalResult: string };
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const saxon = require('saxon-js') as SaxonJS;

/**
 * A rule set: EN 16931 of a syntax, or the Peppol BIS Billing 3.0 rules of a syntax (OpenPEPPOL,
 * packages/documents/einvoice-rules/peppol), which a Peppol document passes on top of EN 16931.
 */
export type RuleSet = Syntax | 'peppol-ubl' | 'peppol-cii';

const xsltOf: Record<RuleSet, string> = {
  ubl: join(rulesDir, 'ubl', 'xslt', 'EN16931-UBL-validation.xslt'),
  cii: join(rulesDir, 'cii', 'xslt', 'EN16931-CII-validation.xslt'),
  'peppol-ubl': join(rulesDir, 'peppol', 'xslt', 'PEPPOL-EN16931-UBL.xsl'),
  'peppol-cii': join(rulesDir, 'peppol', 'xslt', 'PEPPOL-EN16931-CII.xsl'),
};

/** The compiled rules of each set, parsed once per test file (a third of a transform's time when read per call). */
const compiled = new Map<RuleSet, unknown>();

function stylesheet(rules: RuleSet): unknown {
  const known = compiled.get(rules);
  if (known) return known;
  const xslt = xsltOf[rules];
  const hash = createHash('sha256').update(readFileSync(xslt)).digest('hex').slice(0, 16);
  const sef = join(cacheDir, `${rules}-${hash}.sef.json`);
  if (!existsSync(sef)) compileOnce(xslt, sef);
  const parsed: unknown = JSON.parse(readFileSync(sef, 'utf8'));
  compiled.set(rules, parsed);
  return parsed;
}

/**
 * Compiles the XSLT into `sef` unless another test process is doing so: the first to create the
 * lock file compiles (beside the final name, then renamed, so nobody reads half a file); the others
 * wait for the file instead of compiling it again. A lock older than the compilation can take is
 * left by a killed process and taken over.
 */
function compileOnce(xslt: string, sef: string): void {
  mkdirSync(cacheDir, { recursive: true });
  const lock = `${sef}.lock`;
  const sleep = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    if (existsSync(sef)) return;
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 180_000) rmSync(lock, { force: true });
      else Atomics.wait(sleep, 0, 0, 200);
    }
  }
  try {
    if (existsSync(sef)) return;
    const partial = `${sef}.${process.pid}.tmp`;
    execFileSync(process.execPath, [require.resolve('xslt3/xslt3.js'), `-xsl:${xslt}`, `-export:${partial}`, '-nogo'], { stdio: 'pipe' });
    renameSync(partial, sef);
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Compiles (or finds) the EN 16931 rules of both syntaxes; call it in beforeAll with a long timeout. */
export function prepareRules(): void {
  stylesheet('ubl');
  stylesheet('cii');
}

/** Compiles (or finds) the Peppol rules of the syntaxes given (UBL is what Peppol documents here are); beforeAll, long timeout. */
export function preparePeppolRules(syntaxes: readonly Syntax[] = ['ubl']): void {
  for (const syntax of syntaxes) stylesheet(`peppol-${syntax}`);
}

const attr = (tag: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1] ?? '';

/** Every failed assert of the rules (EN 16931 of the syntax by default) for this document; fatal ones make it invalid. */
export function validate(rules: RuleSet, xml: string): FailedAssert[] {
  const svrl = saxon.transform(
    { stylesheetInternal: stylesheet(rules), sourceText: xml, destination: 'serialized' },
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
export function fatalFailures(rules: RuleSet, xml: string): string {
  return validate(rules, xml)
    .filter((f) => f.flag === 'fatal')
    .map((f) => `${f.id} at ${f.location}: ${f.text}`)
    .join('\n');
}

/**
 * The official XSDs (packages/documents/einvoice-rules/xsd, with their notices): UBL 2.1 (OASIS; Invoice or
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

/** The XSD a document is checked against: UBL's Invoice or CreditNote after its root element. */
function mainSchema(schema: Schema, xml: string): string {
  const root = /<(?:[\w-]+:)?(\w+)[\s>]/.exec(xml.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, ''))?.[1];
  return schema === 'ubl' && root === 'CreditNote' ? ublCreditNote : schemaMain[schema];
}

/** The schema errors of the document, one a line (xmllint's messages), or '' when it is valid. */
export async function schemaFailures(schema: Schema, xml: string): Promise<string> {
  return (await schemaFailuresOfMany(schema, [xml]))[0]!;
}

/**
 * The schema errors of each document, in order, '' for a valid one: the documents that share an XSD
 * are checked in one run of xmllint, which reads the schemas once.
 */
export async function schemaFailuresOfMany(schema: Schema, xmls: readonly string[]): Promise<string[]> {
  const files = xsdFiles();
  const found = xmls.map(() => '');
  const byMain = new Map<string, number[]>();
  xmls.forEach((xml, i) => byMain.set(mainSchema(schema, xml), [...(byMain.get(mainSchema(schema, xml)) ?? []), i]));
  for (const [main, indexes] of byMain) {
    const mainFile = files.find((f) => f.fileName === `xsd/${main}`);
    if (!mainFile) throw new Error(`no ${main} under ${xsdDir}`);
    const result = await validateXML({
      xml: indexes.map((i) => ({ fileName: `document-${i}.xml`, contents: xmls[i]! })),
      schema: [mainFile],
      preload: files.filter((f) => f !== mainFile),
      // The UBL schemas (2.4 MB of aggregate components) need more than the default 32 MiB.
      maxMemoryPages: 16 * 1024,
    });
    if (result.valid) continue;
    for (const i of indexes) {
      const own = result.errors.filter((e) => e.loc?.fileName === `document-${i}.xml` || e.rawMessage.startsWith(`document-${i}.xml`));
      const errors = own.map((e) => e.rawMessage.trim()).filter((m) => m && m !== `document-${i}.xml fails to validate`);
      if (errors.length > 0) found[i] = errors.join('\n');
      else if (own.length > 0) found[i] = 'invalid';
    }
    if (indexes.every((i) => found[i] === '')) for (const i of indexes) found[i] = result.rawOutput.trim() || 'invalid';
  }
  return found;
}

/**
 * A document to check: its syntax, its XML, whether it is the factur-x.xml of a Factur-X PDF, and
 * whether it is a Peppol BIS Billing 3.0 document (checked by the Peppol rules too).
 */
export interface EInvoice {
  syntax: Syntax;
  xml: string;
  facturx?: boolean;
  peppol?: boolean;
}

const schemasOf = (doc: EInvoice): Schema[] => (doc.syntax === 'ubl' ? ['ubl'] : doc.facturx ? ['cii', 'facturx'] : ['cii']);

/**
 * Schema errors and fatal EN 16931 rules together, '' when the document is a valid e-invoice: UBL
 * against UBL 2.1; CII against CII D16B, and, for a Factur-X attachment, the Factur-X EN 16931 XSD too.
 */
export async function einvoiceFailures(
  syntax: Syntax,
  xml: string,
  options: { facturx?: boolean; peppol?: boolean } = {},
): Promise<string> {
  return (await einvoiceFailuresOfMany([{ syntax, xml, ...options }]))[0]!;
}

/** einvoiceFailures of each document, in order, with one XSD run per schema for all of them. */
export async function einvoiceFailuresOfMany(docs: readonly EInvoice[]): Promise<string[]> {
  const found: string[][] = docs.map(() => []);
  for (const schema of ['ubl', 'cii', 'facturx'] as const) {
    const checked = docs.flatMap((doc, i) => (schemasOf(doc).includes(schema) ? [i] : []));
    if (checked.length === 0) continue;
    const errors = await schemaFailuresOfMany(
      schema,
      checked.map((i) => docs[i]!.xml),
    );
    checked.forEach((i, k) => errors[k] && found[i]!.push(`${schema} XSD: ${errors[k]}`));
  }
  docs.forEach((doc, i) => {
    const rules = fatalFailures(doc.syntax, doc.xml);
    if (rules) found[i]!.push(`EN 16931 rules: ${rules}`);
    const peppol = doc.peppol ? fatalFailures(`peppol-${doc.syntax}`, doc.xml) : '';
    if (peppol) found[i]!.push(`Peppol rules: ${peppol}`);
  });
  return found.map((f) => f.join('\n'));
}
