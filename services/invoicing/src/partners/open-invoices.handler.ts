import { invoicing } from '@bo/contracts';
import { countOpenUnderFence, handler, organizationToday, type Knex } from '@bo/runtime';
import { statusOf, type InvoiceRow } from '../invoice/invoice.record';

const LISTED = 20;

/**
 * Internal, asked by partners before it deletes a partner: invoices still open for it (draft,
 * proforma, or posted with something still due) and recurring contracts still billing it (active).
 */
export const openInvoicesHandler = handler(invoicing.partnerOpenInvoices, async (req, ctx) => {
  const today = await organizationToday(ctx.db, ctx.orgId);
  // With fence_ms (a delete about to commit) and none open, new invoices for it wait for the delete's outcome.
  return countOpenUnderFence(ctx.db, ctx.orgId, req.partner_id, req.fence_ms, (db) => openInvoices(db, ctx.orgId, req.partner_id, today));
});

async function openInvoices(db: Knex, orgId: number, partnerId: number, today: string) {
  const ofPartner = () => db<InvoiceRow>('invoices').where({ org_id: orgId, partner_id: partnerId });
  const open = ofPartner().where((w) => {
    void w.whereIn('invoicestatus', ['draft', 'proforma']).orWhere((o) => {
      void o.where('invoicestatus', 'open').whereRaw('invoicetotal > amount_paid');
    });
  });
  const contracts = ofPartner().where({ recurring_enabled: true, recurring_status: 'active' });
  const [openRows, openCount, contractRows, contractCount] = await Promise.all([
    open.clone().orderBy('id').limit(LISTED),
    count(open),
    contracts.clone().orderBy('id').limit(LISTED),
    count(contracts),
  ]);
  return {
    message: `Partner ${partnerId} has ${openCount} open invoice(s) and ${contractCount} active recurring contract(s)`,
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
}

async function count(query: Knex.QueryBuilder): Promise<number> {
  const rows = await query.clone().count<{ count: string }[]>({ count: '*' });
  return Number(rows[0]?.count ?? 0);
}
