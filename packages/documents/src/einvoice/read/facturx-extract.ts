import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString, type PDFObject } from '@cantoo/pdf-lib';
import { XmlRefused } from './xml';

/** The names a Factur-X / ZUGFeRD PDF gives its invoice XML (Factur-X 1.0, ZUGFeRD 2.x, ZUGFeRD 1.0, XRechnung in a PDF). */
const INVOICE_NAMES = ['factur-x.xml', 'zugferd-invoice.xml', 'zugferd_invoice.xml', 'xrechnung.xml'];

export interface PdfLimits {
  /** The PDF's own size. */
  maxPdfBytes: number;
  /** The attachment once inflated (a compressed bomb stops here, zlib's maxOutputLength). */
  maxXmlBytes: number;
  /** Name-tree nodes visited, so a looped or huge tree ends. */
  maxNodes: number;
}

export const DEFAULT_PDF_LIMITS: PdfLimits = { maxPdfBytes: 20 * 1024 * 1024, maxXmlBytes: 10 * 1024 * 1024, maxNodes: 1_000 };

export const isPdf = (bytes: Uint8Array): boolean => Buffer.from(bytes.subarray(0, 1024)).toString('latin1').includes('%PDF-');

const text = (o: PDFObject | undefined): string | undefined =>
  o instanceof PDFString || o instanceof PDFHexString ? o.decodeText() : undefined;

/**
 * The invoice XML a Factur-X / ZUGFeRD PDF carries, as bytes (to be read by the same safe parser as
 * any XML), with its attachment name; `XmlRefused` when the PDF cannot be read or carries none.
 * Bounded: the PDF's size, the attachments' name tree (nodes visited), the inflated size (only
 * FlateDecode or no filter is accepted, inflated with a maximum output).
 */
export async function extractFacturXml(pdf: Uint8Array, limits: Partial<PdfLimits> = {}): Promise<{ name: string; xml: Buffer }> {
  try {
    return await extract(pdf, limits);
  } catch (err) {
    if (err instanceof XmlRefused) throw err;
    throw new XmlRefused('malformed', `The PDF cannot be read: ${(err as Error).message.split('\n')[0]}`);
  }
}

async function extract(pdf: Uint8Array, limits: Partial<PdfLimits>): Promise<{ name: string; xml: Buffer }> {
  const lim = { ...DEFAULT_PDF_LIMITS, ...limits };
  if (pdf.byteLength > lim.maxPdfBytes)
    throw new XmlRefused('too_large', `The PDF is ${pdf.byteLength} bytes, more than the ${lim.maxPdfBytes} accepted`);
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(pdf, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  } catch (err) {
    throw new XmlRefused('malformed', `The PDF cannot be read: ${(err as Error).message.split('\n')[0]}`);
  }
  const ctx = doc.context;
  const found = new Map<string, PDFDict>();
  let visited = 0;
  const visit = (filespec: PDFObject | undefined) => {
    const fs = filespec ? ctx.lookup(filespec) : undefined;
    if (!(fs instanceof PDFDict)) return;
    const name = text(fs.get(PDFName.of('UF'))) ?? text(fs.get(PDFName.of('F')));
    if (name && INVOICE_NAMES.includes(name.toLowerCase()) && !found.has(name.toLowerCase())) found.set(name.toLowerCase(), fs);
  };
  const walk = (node: PDFObject | undefined) => {
    const dict = node ? ctx.lookup(node) : undefined;
    if (!(dict instanceof PDFDict)) return;
    if (++visited > lim.maxNodes) throw new XmlRefused('too_large', 'The PDF has too many attachments');
    const names = ctx.lookup(dict.get(PDFName.of('Names')));
    if (names instanceof PDFArray) for (let i = 1; i < names.size(); i += 2) visit(names.get(i));
    const kids = ctx.lookup(dict.get(PDFName.of('Kids')));
    if (kids instanceof PDFArray) for (let i = 0; i < kids.size(); i++) walk(kids.get(i));
  };
  const catalogNames = ctx.lookup(doc.catalog.get(PDFName.of('Names')));
  if (catalogNames instanceof PDFDict) walk(catalogNames.get(PDFName.of('EmbeddedFiles')));
  const af = ctx.lookup(doc.catalog.get(PDFName.of('AF')));
  if (af instanceof PDFArray) for (let i = 0; i < Math.min(af.size(), lim.maxNodes); i++) visit(af.get(i));

  const name = INVOICE_NAMES.find((n) => found.has(n));
  if (!name)
    throw new XmlRefused('malformed', 'The PDF carries no factur-x.xml or zugferd-invoice.xml: it is not a Factur-X / ZUGFeRD invoice');
  const ef = ctx.lookup(found.get(name)!.get(PDFName.of('EF')));
  const stream = ef instanceof PDFDict ? ctx.lookup(ef.get(PDFName.of('F')) ?? ef.get(PDFName.of('UF'))) : undefined;
  if (!(stream instanceof PDFRawStream)) throw new XmlRefused('malformed', `The PDF's ${name} has no content`);
  const filter = ctx.lookup(stream.dict.get(PDFName.of('Filter')));
  const filters = filter instanceof PDFArray ? filter.asArray().map((f) => ctx.lookup(f)) : filter ? [filter] : [];
  let bytes = Buffer.from(stream.contents);
  for (const f of filters) {
    if (!(f instanceof PDFName) || f.asString() !== '/FlateDecode') {
      throw new XmlRefused('malformed', `The PDF's ${name} is encoded with ${String(f)}; only FlateDecode is read`);
    }
    try {
      bytes = inflateSync(bytes, { maxOutputLength: lim.maxXmlBytes });
    } catch (err) {
      const tooLarge =
        (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || /maxOutputLength|buffer/i.test((err as Error).message);
      throw tooLarge
        ? new XmlRefused('too_large', `The PDF's ${name} inflates to more than ${lim.maxXmlBytes} bytes`)
        : new XmlRefused('malformed', `The PDF's ${name} cannot be inflated`);
    }
  }
  if (bytes.byteLength > lim.maxXmlBytes) throw new XmlRefused('too_large', `The PDF's ${name} is more than ${lim.maxXmlBytes} bytes`);
  return { name, xml: bytes };
}
