import { field } from '../client';
import { queryEventually } from '../database';
import { cents, examples, type Check, type Violation } from './types';

/**
 * The partners ledger's rules (services/partners/src/ledger): a validated document moves the
 * balance by its total, signed by type (invoiceout and creditin add, creditout and invoicein
 * subtract); each posted payment by its whole amount, allocated or not: down for money in from the
 * partner, up for money out to it (a registered payment is in for invoiceout and creditin, out for
 * the others, so it moves the balance back the other way from its document). `committed` holds the total of every
 * quotation converted to a customer invoice (invoiceout) that is neither validated nor cancelled. Validated = open or paid
 * (a cancelled document never was: only drafts and proformas cancel).
 */
const EXPECTED = `
with docs as (
  select org_id, partner_id,
         sum(case when invoicetype in ('invoiceout','creditin') then invoicetotal else -invoicetotal end) as amount
    from invoicing.invoices where invoicestatus in ('open','paid') group by 1, 2),
pays as (
  select org_id, partner_id, sum(case when direction = 'in' then -amount else amount end) as amount
    from invoicing.payments where status = 'posted' group by 1, 2),
commits as (
  select q.org_id, q.partner_id, sum(q.total) as amount
    from sales.quotations q join invoicing.invoices i on i.id = q.invoice_id and i.org_id = q.org_id
   where q.status = 'converted' and i.invoicetype = 'invoiceout' and i.invoicestatus in ('draft','proforma') group by 1, 2),
effects as (
  select org_id, partner_id, sum(balance_effect) as amount, count(*) as n from partners.partner_transactions group by 1, 2),
open_commitments as (
  select org_id, partner_id, sum(amount) as amount from partners.commitments where status = 'open' group by 1, 2)
select p.org_id, p.id, p.balance, p.committed,
       coalesce(d.amount, 0) + coalesce(y.amount, 0) as expected_balance,
       coalesce(c.amount, 0) as expected_committed,
       coalesce(e.amount, 0) as ledger_balance, coalesce(e.n, 0) as ledger_rows,
       coalesce(o.amount, 0) as open_commitments
  from partners.partners p
  left join docs d on d.org_id = p.org_id and d.partner_id = p.id
  left join pays y on y.org_id = p.org_id and y.partner_id = p.id
  left join commits c on c.org_id = p.org_id and c.partner_id = p.id
  left join effects e on e.org_id = p.org_id and e.partner_id = p.id
  left join open_commitments o on o.org_id = p.org_id and o.partner_id = p.id
 order by p.org_id, p.id`;

/**
 * Ledger rows that should be there and are not, or are and should not: one per validated document,
 * one per payment, and one per allocation of a payment made by `invoicing.payment.create` (a
 * registered payment's one allocation is its own payment row: its event posts no other).
 */
const TRANSACTIONS = `
with wanted as (
  select org_id, partner_id, 'invoice' as source, id as source_id, invoicetotal as amount
    from invoicing.invoices where invoicestatus in ('open','paid')
  union all
  select org_id, partner_id, 'payment', id, amount from invoicing.payments
  union all
  select a.org_id, p.partner_id, 'allocation', a.id, a.amount
    from invoicing.payment_allocations a join invoicing.payments p on p.id = a.payment_id
   where p.invoice_id is null and a.status = 'active')
select coalesce(w.org_id, t.org_id) as org_id, coalesce(w.partner_id, t.partner_id) as partner_id,
       coalesce(w.source, t.source) as source, coalesce(w.source_id, t.source_id) as source_id,
       w.amount as document_amount, t.amount as ledger_amount, t.id as ledger_row
  from wanted w full join partners.partner_transactions t
    on t.org_id = w.org_id and t.source = w.source and t.source_id = w.source_id
 where w.source_id is null or t.id is null or w.amount <> t.amount or w.partner_id <> t.partner_id`;

interface PartnerRow {
  org_id: number;
  id: number;
  balance: string;
  committed: string;
  expected_balance: string;
  expected_committed: string;
  ledger_balance: string;
  ledger_rows: string;
  open_commitments: string;
}

export const ledgerCheck: Check = {
  name: 'balances',
  title: 'partner balances and committed amounts equal what their documents say (database and API)',
  async run(ctx) {
    const rows = await queryEventually<PartnerRow>(ctx.pool, EXPECTED);
    const balance: unknown[] = [];
    const committed: unknown[] = [];
    const internal: unknown[] = [];
    for (const r of rows) {
      const ev = {
        org: r.org_id,
        partner_id: r.id,
        balance: r.balance,
        expected: r.expected_balance,
        ledger_rows_sum: r.ledger_balance,
        ledger_rows: Number(r.ledger_rows),
      };
      if (cents(r.balance) !== cents(r.expected_balance)) balance.push(ev);
      else if (cents(r.balance) !== cents(r.ledger_balance)) internal.push(ev);
      if (cents(r.committed) !== cents(r.expected_committed)) {
        committed.push({
          org: r.org_id,
          partner_id: r.id,
          committed: r.committed,
          expected: r.expected_committed,
          open_commitment_rows: r.open_commitments,
        });
      }
    }
    const tx = await queryEventually<Record<string, unknown>>(ctx.pool, TRANSACTIONS);
    const missingTx = tx.filter((t) => t['ledger_row'] === null);
    const strayTx = tx.filter((t) => t['document_amount'] === null);
    const wrongTx = tx.filter((t) => t['ledger_row'] !== null && t['document_amount'] !== null);

    // The API must tell the same: every partner's balance and committed amount as listed.
    const apiWrong: unknown[] = [];
    let listed = 0;
    const byKey = new Map(rows.map((r) => [`${r.org_id}/${r.id}`, r]));
    for (const org of ctx.orgs) {
      for (let page = 1; ; page++) {
        const res = await ctx.client.read(org, '/crm/partners', { org_id: String(org), page_number: page, page_size: 100 });
        const partners = (res.body?.['partners'] ?? []) as Array<{ id: number; balance: number; committed: number }>;
        if (res.status !== 200) {
          apiWrong.push({ org, page, status: res.status, code: res.code });
          break;
        }
        for (const p of partners) {
          listed += 1;
          const r = byKey.get(`${org}/${p.id}`);
          if (!r || cents(p.balance) !== cents(r.expected_balance) || cents(p.committed) !== cents(r.expected_committed)) {
            apiWrong.push({
              org,
              partner_id: p.id,
              api_balance: p.balance,
              expected_balance: r?.expected_balance,
              api_committed: p.committed,
              expected_committed: r?.expected_committed,
            });
          }
        }
        if (!field(res.body, 'pagination', 'has_next')) break;
      }
    }

    const violations: Violation[] = [];
    if (balance.length)
      violations.push({
        message: `${balance.length} partners' balance differs from their validated documents minus their payments`,
        evidence: examples(balance),
      });
    if (internal.length)
      violations.push({
        message: `${internal.length} partners' balance differs from the sum of their ledger rows`,
        evidence: examples(internal),
      });
    if (committed.length)
      violations.push({
        message: `${committed.length} partners' committed amount differs from their converted, unposted quotations`,
        evidence: examples(committed),
      });
    if (missingTx.length)
      violations.push({
        message: `${missingTx.length} validated documents, payments or allocations have no partner ledger row (event lost or not applied)`,
        evidence: examples(missingTx),
      });
    if (strayTx.length)
      violations.push({
        message: `${strayTx.length} partner ledger rows have no validated document, payment or allocation behind them`,
        evidence: examples(strayTx),
      });
    if (wrongTx.length)
      violations.push({
        message: `${wrongTx.length} partner ledger rows disagree with their document's amount or partner`,
        evidence: examples(wrongTx),
      });
    if (apiWrong.length)
      violations.push({
        message: `${apiWrong.length} partners listed by the API with another balance or committed amount than their documents say`,
        evidence: examples(apiWrong),
      });
    const nonZero = rows.filter((r) => cents(r.balance) !== 0).length;
    const withCommitted = rows.filter((r) => cents(r.committed) !== 0).length;
    return {
      summary: `${rows.length} partners (${nonZero} with a balance, ${withCommitted} with a committed amount), ${listed} listed by the API`,
      violations,
    };
  },
};
