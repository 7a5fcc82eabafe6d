import { extractFacturXml, isPdf, type PdfLimits } from './facturx-extract';
import { readCii } from './cii';
import type { ReceivedInvoice } from './model';
import { readUbl } from './ubl';
import { parseXml, XmlRefused, type XmlLimits } from './xml';

export const UBL_INVOICE_NS = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2';
export const UBL_CREDIT_NOTE_NS = 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2';
export const CII_NS = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';

/** How the file came: UBL or CII XML, or a Factur-X / ZUGFeRD PDF carrying CII. */
export type ReceivedFileSyntax = 'ubl' | 'cii' | 'facturx';

export interface ReadEInvoice {
  syntax: ReceivedFileSyntax;
  /** The XML the rules run on: the file itself, or the PDF's attachment. */
  xml: Buffer;
  invoice: ReceivedInvoice;
}

/** What the root element makes of the XML, or an `unsupported` refusal naming what it is. */
function readXml(bytes: Uint8Array, limits: Partial<XmlLimits>): ReceivedInvoice {
  const root = parseXml(bytes, limits);
  if (root.ns === UBL_INVOICE_NS && root.local === 'Invoice') return readUbl(root);
  if (root.ns === UBL_CREDIT_NOTE_NS && root.local === 'CreditNote') return readUbl(root);
  if (root.ns === CII_NS && root.local === 'CrossIndustryInvoice') return readCii(root);
  throw new XmlRefused(
    'unsupported',
    `The document is <${root.name}>${root.ns ? ` in ${root.ns}` : ''}: only a UBL 2.1 Invoice or CreditNote and a UN/CEFACT CII CrossIndustryInvoice are read`,
  );
}

/**
 * Reads a received e-invoice file (bytes as received): a PDF is a Factur-X / ZUGFeRD carrier whose
 * attachment is read; anything else is XML. Safe and bounded (xml.ts, facturx-extract.ts); an
 * `XmlRefused` says why a file cannot be read.
 */
export async function readEInvoice(
  bytes: Uint8Array,
  limits: { xml?: Partial<XmlLimits>; pdf?: Partial<PdfLimits> } = {},
): Promise<ReadEInvoice> {
  if (isPdf(bytes)) {
    const { xml } = await extractFacturXml(bytes, limits.pdf);
    const invoice = readXml(xml, limits.xml ?? {});
    if (invoice.syntax !== 'cii') throw new XmlRefused('unsupported', "The PDF's attachment is not a CII CrossIndustryInvoice");
    return { syntax: 'facturx', xml, invoice };
  }
  const invoice = readXml(bytes, limits.xml ?? {});
  return { syntax: invoice.syntax, xml: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), invoice };
}
