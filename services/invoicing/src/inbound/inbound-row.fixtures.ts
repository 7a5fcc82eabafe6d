import type { InboundRow } from './inbound.repository';

/** An import held for review: its supplier known by key, no bill. */
export const held: InboundRow = {
  id: 41,
  org_id: 1,
  status: 'needs_review',
  syntax: 'ubl',
  original: Buffer.from(''),
  sha256: 'a'.repeat(64),
  content_type: 'application/xml',
  filename: 'bill.xml',
  supplier_key: 'vat:NL809163160B01',
  partner_id: null,
  invoice_number: 'F-2026-7',
  issue_date: '2026-11-02',
  summary: {
    customization_id: null,
    currency: 'EUR',
    seller: { name: 'Supplier BV', vat_id: 'NL809163160B01', endpoint_id: null },
    totals: { line_extension: '100.00', tax_exclusive: '100.00', tax: '21.00', tax_inclusive: '121.00', payable: '121.00' },
  },
  validation: { fatal: [], warnings: [] },
  review_reasons: ['supplier unknown'],
  notes: [],
  rejection_reason: null,
  invoice_id: null,
  received_at: new Date('2026-11-03T10:00:00Z'),
};
