import type { Migration } from '@bo/runtime';
import { createPartnerDeleteFences } from '@bo/billing';

export const migration: Migration = {
  // Committed credit counts only what becomes a customer invoice: a quotation converted (by the
  // server: converted_from_quotation_id) to a credit note or a vendor document commits nothing. The
  // credit check's committed sum names the link and the type, so its partial index does too (and the
  // one it replaces, which no statement reads any more, goes).
  name: '011_exposure_by_receivable',
  async up(trx, schema) {
    await trx.raw(
      `create index invoices_partner_committed_out on ??.invoices (org_id, partner_id)
           where converted_from_quotation_id is not null and invoicetype = 'invoiceout' and invoicestatus in ('draft', 'proforma')`,
      [schema],
    );
    await trx.raw('drop index if exists ??.invoices_partner_committed', [schema]);
    // A partner being deleted gets no new invoice (runtime read-models/partner-delete-fence.ts).
    await createPartnerDeleteFences(trx, schema);
  },
};
