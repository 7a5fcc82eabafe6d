import { FormatFactoryService, invoiceSchema, type EInvoiceFormat, type Logger } from '@e-invoice-eu/core';
import Ajv2019, { type ValidateFunction } from 'ajv/dist/2019';
import type { RenderableDocument } from '../model';
import { finishFacturX } from './facturx-metadata';
import { documentTaxes } from '../taxes';
import { invoiceData, taxRoundingProblems } from './invoice-data';
import { eInvoiceRefusal, missingForEInvoice, type EInvoiceProfile } from './requirements';

/** A document that cannot become an e-invoice: `missing` names the absent fields (`seller.vat_id`…). */
export class EInvoiceRefused extends Error {
  constructor(
    message: string,
    readonly missing: string[] = [],
    /** The party whose record is deleted, when that is why. */
    readonly deleted?: 'seller' | 'buyer',
    /** Fields with characters the PDF's fonts cannot draw, which PDF/A (Factur-X) forbids. */
    readonly undrawable: { field: string; characters: string[] }[] = [],
  ) {
    super(message);
    this.name = 'EInvoiceRefused';
  }
}

/** The library reports through a logger; its warnings concern spreadsheet mappings, not JSON input, so they are dropped. */
const quiet: Logger = { log: () => undefined, warn: () => undefined, error: () => undefined };

/** Throws EInvoiceRefused unless the document can be an e-invoice (kind, status, lines, currency, parties, tax rounding). */
export function assertEInvoice(doc: RenderableDocument, profile: EInvoiceProfile = 'en16931'): void {
  const refusal = eInvoiceRefusal(doc);
  if (refusal) throw new EInvoiceRefused(refusal);
  // A deleted party's fields cannot be set any more: naming them would send the user to a record they cannot edit.
  const deleted = doc.seller.deleted ? 'seller' : doc.buyer.deleted ? 'buyer' : undefined;
  if (deleted) throw new EInvoiceRefused(`the ${deleted} is deleted, so its data can no longer be completed`, [], deleted);
  const missing = missingForEInvoice(doc, profile);
  if (missing.length > 0) throw new EInvoiceRefused(`an e-invoice needs ${missing.join(', ')}`, missing);
  const taxes = documentTaxes(doc);
  const rounding = taxRoundingProblems(taxes.breakdown, doc.currency.toUpperCase(), taxes.minor_unit);
  if (rounding.length > 0) throw new EInvoiceRefused(`${rounding.join('; ')}. The PDF is still available`);
}

type Tree = { [key: string]: unknown };

/** Removes every `ram:ActualAmount@currencyID` from the CII tree the library is about to write. */
function dropAllowanceCurrencies(node: unknown): void {
  if (Array.isArray(node)) node.forEach(dropAllowanceCurrencies);
  else if (node && typeof node === 'object') {
    const tree = node as Tree;
    delete tree['ram:ActualAmount@currencyID'];
    Object.values(tree).forEach(dropAllowanceCurrencies);
  }
}

/**
 * The header trade delivery (BG-13) is mandatory in CII D16B and in the Factur-X EN 16931 XSD, even
 * empty, between the header trade agreement and settlement; the library writes it only when the
 * input has delivery data, which ours never has. Its key is put in that place in the tree, since the
 * library writes elements in key order.
 */
function ensureHeaderDelivery(transaction: Tree): Tree {
  if (transaction['ram:ApplicableHeaderTradeDelivery'] !== undefined) return transaction;
  const ordered: Tree = {};
  for (const [key, value] of Object.entries(transaction)) {
    if (key === 'ram:ApplicableHeaderTradeSettlement') ordered['ram:ApplicableHeaderTradeDelivery'] = {};
    ordered[key] = value;
  }
  if (ordered['ram:ApplicableHeaderTradeDelivery'] === undefined) ordered['ram:ApplicableHeaderTradeDelivery'] = {};
  return ordered;
}

/**
 * Three fixes to the CII tree @e-invoice-eu/core writes (also the one inside Factur-X), made in its
 * `postProcess(cii)` step: it copies the currency its input requires on allowance amounts into
 * ram:ActualAmount, which CII forbids (CII-DT-031: only header totals carry one); it leaves out the
 * mandatory header trade delivery when there is no delivery data (ensureHeaderDelivery); and it
 * drops the preceding invoice reference (BT-25, BT-26) of a credit note, which goes after the
 * header monetary summation as ram:InvoiceReferencedDocument (the last element the settlement has).
 */
export function fixCii(cii: Tree, doc: Pick<RenderableDocument, 'credited_invoice'>): void {
  dropAllowanceCurrencies(cii);
  const root = cii['rsm:CrossIndustryInvoice'] as Tree | undefined;
  const found = root?.['rsm:SupplyChainTradeTransaction'] as Tree | undefined;
  if (!root || !found) return;
  const transaction = ensureHeaderDelivery(found);
  root['rsm:SupplyChainTradeTransaction'] = transaction;
  const settlement = transaction['ram:ApplicableHeaderTradeSettlement'] as Tree | undefined;
  const credited = doc.credited_invoice;
  if (settlement && credited && !settlement['ram:InvoiceReferencedDocument']) {
    const date = credited.issue_date?.slice(0, 10).replaceAll('-', '');
    settlement['ram:InvoiceReferencedDocument'] = {
      'ram:IssuerAssignedID': credited.number,
      ...(date ? { 'ram:FormattedIssueDateTime': { 'qdt:DateTimeString': date, 'qdt:DateTimeString@format': '102' } } : {}),
    };
  }
}

/** A format service as the library makes it: the CII writers (CII, Factur-X) have the postProcess step. */
type FormatService = EInvoiceFormat & { postProcess?: (cii: Tree) => void };

/**
 * Extends a CII writer's fix-up step with fixCii. The UBL writer has no such step and needs none;
 * a CII writer without it means the library changed under us, which must fail loudly rather than
 * silently write CII the rules refuse.
 */
export function withCiiFixes(service: EInvoiceFormat, format: string, doc: RenderableDocument): EInvoiceFormat {
  if (format.toUpperCase() === 'UBL') return service;
  const formatter = service as FormatService;
  const postProcess = formatter.postProcess;
  if (typeof postProcess !== 'function') {
    throw new Error(
      `@e-invoice-eu/core's ${format} writer has no postProcess(cii) step any more: the CII fixes (CII-DT-031, BT-25) cannot be applied; adapt render.ts to the library`,
    );
  }
  formatter.postProcess = (cii: Tree) => {
    postProcess.call(formatter, cii);
    fixCii(cii, doc);
  };
  return formatter;
}

/**
 * The library's check of its input model, compiled once per format. Its own `InvoiceService.generate`
 * compiles the whole UBL-shaped JSON schema with Ajv on every call, which was most of a render's
 * time (about 150 ms of CPU for an e-invoice of a few lines); the schema depends only on the format
 * (each writer patches it), so the compiled check is kept.
 */
const inputChecks = new Map<string, ValidateFunction>();

function inputCheck(format: string, formatter: EInvoiceFormat): ValidateFunction {
  let check = inputChecks.get(format);
  if (!check) {
    const schema = structuredClone(invoiceSchema);
    formatter.patchSchema(schema);
    check = new Ajv2019({ strict: true, allErrors: true, useDefaults: true }).compile(schema);
    inputChecks.set(format, check);
  }
  return check;
}

/**
 * What the library's `InvoiceService.generate` does, with the compiled check kept (inputCheck) and its
 * CII writer's fix-up step extended by fixCii: the format's writer, the input checked (and its
 * defaults filled) against the writer's schema, then written.
 */
async function generate(
  doc: RenderableDocument,
  format: string,
  pdf?: Uint8Array,
  profile: EInvoiceProfile = 'en16931',
): Promise<string | Uint8Array> {
  assertEInvoice(doc, profile);
  const factory = new FormatFactoryService();
  const formatter = withCiiFixes(factory.createFormatService(format, quiet), format, doc);
  const normalized = factory.normalizeFormat(format);
  const invoice = structuredClone(invoiceData(doc, profile));
  const check = inputCheck(normalized, formatter);
  if (!check(invoice)) throw new Ajv2019.ValidationError(check.errors ?? []);
  formatter.fillInvoiceDefaults(invoice);
  return formatter.generate(invoice, {
    format: normalized,
    lang: 'en',
    noWarnings: true,
    ...(pdf ? { pdf: { buffer: pdf, filename: `${doc.number}.pdf`, mimetype: 'application/pdf' } } : {}),
  });
}

/** UBL 2.1 Invoice, or CreditNote for credit notes, with the EN 16931 customization id. */
export async function renderUbl(doc: RenderableDocument): Promise<string> {
  return String(await generate(doc, 'UBL'));
}

/**
 * Peppol BIS Billing 3.0: the UBL 2.1 Invoice or CreditNote with the Peppol customization and
 * profile ids, the parties' Peppol ids as their electronic addresses and the buyer reference; it
 * passes EN 16931 and the Peppol rules (docs/documents.md "Peppol").
 */
export async function renderPeppol(doc: RenderableDocument): Promise<string> {
  return String(await generate(doc, 'UBL', undefined, 'peppol'));
}

/** UN/CEFACT CII D16B (type code 380 or 381), EN 16931. */
export async function renderCii(doc: RenderableDocument): Promise<string> {
  return String(await generate(doc, 'CII'));
}

/**
 * Factur-X profile EN 16931: the given PDF made PDF/A-3 with the CII attached as factur-x.xml and
 * XMP metadata that agrees with the info dictionary, every date the document's (finishFacturX).
 */
export async function renderFacturX(doc: RenderableDocument, pdf: Uint8Array): Promise<Uint8Array> {
  const out = await generate(doc, 'Factur-X-EN16931', pdf);
  return finishFacturX(typeof out === 'string' ? Buffer.from(out) : out, doc);
}
