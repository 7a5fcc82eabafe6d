import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // A line's VAT as its document states it (docs/inbound.md "The sender's VAT kept"): a vendor bill
  // made by import carries its supplier's VAT per category when the supplier's rounding alone sets it
  // apart from the computed one; the tax calculation takes it instead of computing. Null: computed
  // (every other line). A document allowance or charge keeps its own in its `allowances_charges` JSON.
  name: '056_line_stated_tax',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await trx.raw(`alter table ${q}.invoice_lines add column stated_tax numeric(20, 4)`);
  },
};
