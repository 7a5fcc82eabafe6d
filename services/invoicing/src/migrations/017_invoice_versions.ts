import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // An invoice's `version` (docs/invoicing.md, "Versions"): 1 when it is made, one more for each
  // transaction that changes its row, so a receiver of its events (which carry it) keeps the newest
  // whatever order they arrive in. Counted by the database, so no write path can forget it; once
  // per transaction (the top-level transaction id, savepoints included), so a creation that numbers
  // its invoice after inserting it, or a validation that updates it twice, is one change. Invoices
  // made before count from 1.
  name: '017_invoice_versions',
  async up(trx, schema) {
    await trx.raw(
      `alter table ??.invoices add column version integer not null default 1,
           add column version_xact xid8`,
      [schema],
    );
    await trx.raw(
      `create function ??.invoice_version() returns trigger language plpgsql as $$
         begin
           if tg_op = 'INSERT' then
             new.version := 1;
           elsif old.version_xact is distinct from pg_current_xact_id() then
             new.version := old.version + 1;
           else
             new.version := old.version;
           end if;
           new.version_xact := pg_current_xact_id();
           return new;
         end $$`,
      [schema],
    );
    await trx.raw(
      'create trigger invoices_version before insert or update on ??.invoices for each row execute function ??.invoice_version()',
      [schema, schema],
    );
  },
};
