import { withLockTimeout, type Migration } from '@bo/runtime';

export const migration: Migration = {
  // A statement finds its candidates (ledger/history.ts partnerCandidates: the partner's items open
  // the day before its period or touched after it) from the partner's postings dated after that day,
  // by index, not by probing every document and payment the partner ever had. An allocation names
  // two items of one partner, and now carries that partner: a trigger copies it from the document
  // it settles, in the allocation's own statement, so every writer (and every later rewrite of one)
  // fills it. Refunds carry theirs already. Write-offs and voids are found per partner among the
  // few documents written off and payments voided.
  name: '050_partner_postings_by_date',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await withLockTimeout(trx, () => trx.raw(`alter table ${q}.payment_allocations add column partner_id integer`));
    await trx.raw(
      `create function ${q}.payment_allocations_partner() returns trigger language plpgsql as $$
         begin
           select i.partner_id into new.partner_id from ${q}.invoices i where i.id = new.invoice_id;
           return new;
         end $$`,
    );
    await trx.raw(
      `create trigger payment_allocations_partner before insert or update of invoice_id on ${q}.payment_allocations
           for each row execute function ${q}.payment_allocations_partner()`,
    );
    await withLockTimeout(trx, async () => {
      await trx.raw(`update ${q}.payment_allocations a set partner_id = i.partner_id from ${q}.invoices i where i.id = a.invoice_id`);
      await trx.raw(`alter table ${q}.payment_allocations alter column partner_id set not null`);
      await trx.raw(`create index payment_allocations_org_partner_date on ${q}.payment_allocations (org_id, partner_id, allocation_date)`);
      await trx.raw(`create index payment_refunds_org_partner_date on ${q}.payment_refunds (org_id, partner_id, refund_date)`);
      await trx.raw(
        `create index invoices_org_partner_written_off on ${q}.invoices (org_id, partner_id) where write_off_journal_entry_id is not null`,
      );
      await trx.raw(`create index payments_org_partner_voided on ${q}.payments (org_id, partner_id) where status = 'voided'`);
    });
  },
};
