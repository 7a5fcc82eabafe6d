import { renderedDocumentReply, renderFormatField, renderFormats } from '../documents';
import { baseRequest, intId } from '../fields';
import { defineOperation, HEAVY_COST, RENDER_TIMEOUT_MS } from '../operation';
import { z } from 'zod';

export const renderInvoiceRequest = z.object({ ...baseRequest, id: intId, format: renderFormatField(renderFormats) });

/**
 * On /invoicing/getinvoice a `format` asks for the invoice as a file instead of its balances: a
 * PDF (drafts marked DRAFT), or for a validated invoice with a complete seller and buyer an
 * EN 16931 e-invoice (UBL, CII, Factur-X), or the UBL as a Peppol BIS Billing 3.0 document (`peppol`).
 */
export const renderInvoice = defineOperation({
  name: 'invoicing.invoice.render',
  service: 'invoicing',
  summary: 'The invoice as a PDF, or as an EN 16931 e-invoice: UBL 2.1, CII D16B, Factur-X or Peppol BIS Billing 3.0 (with format)',
  paths: ['/invoicing/getinvoice'],
  select: { present: 'format' },
  write: false,
  cost: HEAVY_COST,
  timeoutMs: RENDER_TIMEOUT_MS,
  request: renderInvoiceRequest,
  reply: renderedDocumentReply,
  rules: [
    { field: 'organization', rule: "an e-invoice needs the seller's data it names (legal name, country, VAT id, default currency …) set" },
    {
      field: 'partner',
      rule: "an e-invoice needs the buyer's data it names (country, email …) set; facturx needs characters its fonts draw",
    },
    { field: 'lines', rule: 'facturx needs characters its fonts draw in every line' },
    {
      field: 'organization.peppol_id',
      rule: "peppol needs the organization's and the partner's peppol_id (their electronic addresses) and the invoice's invoicereference (BT-10)",
    },
    { field: 'invoicereference', rule: "peppol needs the invoice's invoicereference (BT-10, the buyer's reference)" },
  ],
});
