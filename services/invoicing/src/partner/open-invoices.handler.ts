import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { countOpenUnderFence, readSettings } from '@bo/billing';
import { statusOf } from '../invoice/invoice.record';
import { openDocumentsOf } from './open-documents.repository';

const LISTED = 20;

/**
 * Internal, asked by partners before it deletes a partner: invoices still open for it (draft,
 * proforma, or posted with something still due) and recurring contracts still billing it (active).
 */
export const openInvoicesHandler = handler(invoicing.partnerOpenInvoices, async (req, ctx) => {
  const today = (await readSettings(ctx.db, ctx.orgId)).today();
  // With fence_ms (a delete about to commit) and none open, new invoices for it wait for the delete's outcome.
  return countOpenUnderFence(ctx.db, ctx.orgId, req.partner_id, req.fence_ms, async (db) => {
    const { openRows, openCount, contractRows, contractCount } = await openDocumentsOf(db, ctx.orgId, req.partner_id, LISTED);
    return {
      message: `Partner ${req.partner_id} has ${openCount} open invoice(s) and ${contractCount} active recurring contract(s)`,
      open_documents: openCount,
      active_contracts: contractCount,
      documents: [
        ...openRows.map((r) => ({
          kind: 'invoice' as const,
          id: r.id,
          number: r.invoicenumber,
          type: r.invoicetype,
          status: statusOf(r, today),
        })),
        ...contractRows.map((r) => ({
          kind: 'recurring_contract' as const,
          id: r.id,
          number: r.invoicenumber,
          type: r.invoicetype,
          status: r.recurring_status ?? 'active',
        })),
      ],
    };
  });
});
