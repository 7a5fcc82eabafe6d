import type { DocumentKind, RenderableDocument } from '../model';

const titles: Record<DocumentKind, string> = {
  invoice: 'Invoice',
  credit_note: 'Credit note',
  vendor_bill: 'Vendor bill',
  vendor_credit_note: 'Vendor credit note',
  quotation: 'Quotation',
  proforma: 'Proforma invoice',
  estimate: 'Estimate',
};

export function documentTitle(kind: DocumentKind): string {
  return titles[kind];
}

/** The document properties a PDF carries (its info dictionary; in Factur-X also its XMP metadata). */
export interface DocumentInfo {
  title: string;
  author: string;
  subject: string;
  creator: string;
  producer: string;
  /** Creation and modification date: the document date at midnight UTC, never the clock, so a render is repeatable. */
  date: Date;
}

/** The properties of a document's PDF, from the document alone. */
export function documentInfo(d: RenderableDocument): DocumentInfo {
  const title = `${documentTitle(d.kind)} ${d.number}`;
  return {
    title,
    author: d.seller.name,
    subject: `${title} for ${d.buyer.name}`,
    creator: 'backoffice',
    producer: 'backoffice (PDFKit)',
    date: new Date(`${d.issue_date.slice(0, 10)}T00:00:00Z`),
  };
}
