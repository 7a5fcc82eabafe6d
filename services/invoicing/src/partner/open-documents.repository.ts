import type { Knex } from '@bo/runtime';
import type { InvoiceRow } from '../invoice/invoice.record';

/**
 * The partner's open invoices (draft, proforma, or posted with something still due) and active
 * recurring contracts: the first `listed` of each, by id, and how many there are.
 */
export async function openDocumentsOf(db: Knex, orgId: number, partnerId: number, listed: number) {
  const ofPartner = () => db<InvoiceRow>('invoices').where({ org_id: orgId, partner_id: partnerId });
  const open = ofPartner().where((w) => {
    void w.whereIn('invoicestatus', ['draft', 'proforma']).orWhere((o) => {
      void o.where('invoicestatus', 'open').whereRaw('invoicetotal > amount_paid');
    });
  });
  const contracts = ofPartner().where({ recurring_enabled: true, recurring_status: 'active' });
  const [openRows, openCount, contractRows, contractCount] = await Promise.all([
    open.clone().orderBy('id').limit(listed),
    count(open),
    contracts.clone().orderBy('id').limit(listed),
    count(contracts),
  ]);
  return { openRows: openRows, openCount, contractRows: contractRows, contractCount };
}

async function count(query: Knex.QueryBuilder): Promise<number> {
  const rows = await query.clone().count<{ count: string }[]>({ count: '*' });
  return Number(rows[0]?.count ?? 0);
}
