import { AppError, type Knex } from '@bo/runtime';
import { isIssued } from '../invoice/issued-snapshot';
import { issuedFile } from '../invoice/issued-files';
import type { InvoiceRow } from '../invoice/invoice.record';
import type { PeppolTransmission, PeppolTransport } from './transport';
import { peppolRefusals } from './peppol-refusals';

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescape = (s: string) => s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => entities[e]!);

/** The participant id (`scheme:identifier`) of a party of a Peppol document this system wrote. */
function endpointOf(xml: string, party: 'AccountingSupplierParty' | 'AccountingCustomerParty'): string {
  const m = new RegExp(`<cac:${party}>\\s*<cac:Party>\\s*<cbc:EndpointID schemeID="([0-9]{4})">([^<]*)</cbc:EndpointID>`).exec(xml);
  if (!m) throw new Error(`the issued Peppol document has no ${party} EndpointID`);
  return `${m[1]}:${unescape(m[2]!)}`;
}

/**
 * Hands an issued invoice's Peppol document to the transport (docs/documents.md "Peppol"): the file
 * its first `getinvoice` with `format: "peppol"` kept (issued-files.ts), byte for byte, so what is
 * sent is what the organization and its customer can fetch. Keyed by the invoice and its version:
 * sending again answers the same transmission. An invoice not issued, or whose Peppol document was
 * never rendered, is a 400 that says what to do.
 */
export async function sendInvoiceByPeppol(
  db: Knex,
  orgId: number,
  invoiceId: number,
  transport: PeppolTransport,
): Promise<PeppolTransmission> {
  const invoice = await db<InvoiceRow>('invoices').where({ org_id: orgId, id: invoiceId }).first();
  if (!invoice) throw new AppError(404, 'not_found', `Invoice ${invoiceId} not found`);
  if (!isIssued(invoice) || (invoice.invoicetype !== 'invoiceout' && invoice.invoicetype !== 'creditout'))
    throw peppolRefusals.notSendable(invoice.invoicenumber);
  const file = await issuedFile(db, invoice, 'peppol');
  if (!file) throw peppolRefusals.peppolDocumentNotIssued(invoice.invoicenumber);
  const xml = file.content.toString('utf8');
  return transport.send({
    org_id: orgId,
    invoice_id: invoice.id,
    version: invoice.version,
    number: invoice.invoicenumber,
    sender: endpointOf(xml, 'AccountingSupplierParty'),
    receiver: endpointOf(xml, 'AccountingCustomerParty'),
    document_type: invoice.invoicetype === 'creditout' ? 'credit_note' : 'invoice',
    content: file.content,
  });
}
