import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // A customer invoice's ISO 11649 payment reference (kernel `invoicePaymentReference`: `RF`, the
  // check digits, the invoice id), set at validation; unique per organization so a reference
  // read from a bank statement finds one invoice. Customer invoices validated before it get
  // theirs here, computed as the kernel does: the digits of the id followed by `RF00` (R = 27,
  // F = 15) modulo 97, subtracted from 98. Their stored documents keep what they said.
  name: '040_invoice_payment_reference',
  async up(trx, schema) {
    await trx.raw('alter table ??.invoices add column payment_reference text', [schema]);
    await trx.raw(
      `update ??.invoices
            set payment_reference = 'RF' || lpad((98 - ((id::numeric * 1000000 + 271500) % 97))::text, 2, '0') || id::text
          where invoicetype = 'invoiceout' and validated_at is not null`,
      [schema],
    );
    await trx.raw(
      'create unique index invoices_org_payment_reference on ??.invoices (org_id, payment_reference) where payment_reference is not null',
      [schema],
    );
  },
};
