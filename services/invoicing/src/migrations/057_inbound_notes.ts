import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // What an import states about the bill it made beyond the document's own figures
  // (docs/inbound.md "The sender's VAT kept"): a category whose VAT the bill carries as the document
  // states it, with the figure its lines compute.
  name: '057_inbound_notes',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await trx.raw(`alter table ${q}.inbound_documents add column notes jsonb not null default '[]'`);
  },
};
