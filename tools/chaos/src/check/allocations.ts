import { queryEventually } from '../database';
import { OPS } from '../load';
import { byOp, cents, examples, settled, type Check, type Violation } from './types';

/** Active allocations booked more than once: the same payment to the same document in two rows. */
const TWICE = `
select payment_id, invoice_id, count(*) as n, array_agg(id order by id) as ids
  from invoicing.payment_allocations where status = 'active' and payment_id is not null
 group by 1, 2 having count(*) > 1`;

/** Documents whose paid amount is not the sum of their active allocations. */
const PAID = `
select i.org_id, i.id, i.invoicenumber, i.amount_paid, coalesce(a.sum, 0) as allocated, i.invoicetotal
  from invoicing.invoices i
  left join (select invoice_id, sum(amount) as sum from invoicing.payment_allocations where status = 'active' group by 1) a
    on a.invoice_id = i.id
 where i.amount_paid <> coalesce(a.sum, 0) or i.amount_paid > i.invoicetotal`;

/** Payments whose allocated amount is not the sum of their active allocations, or exceeds the payment. */
const PAYMENTS = `
select p.org_id, p.id, p.amount, p.allocated, coalesce(a.sum, 0) as allocations
  from invoicing.payments p
  left join (select payment_id, sum(amount) as sum from invoicing.payment_allocations where status = 'active' group by 1) a
    on a.payment_id = p.id
 where p.status = 'posted' and (p.allocated <> coalesce(a.sum, 0) or p.allocated + p.refunded > p.amount)`;

/**
 * Each partner's balance from the other side of the books: its validated documents, less what was
 * allocated to them (an allocation of money in from the partner lowers it, of money out raises it),
 * less the credit its payments hold unallocated (what is neither allocated nor refunded).
 */
const BALANCES = `
with docs as (
  select org_id, partner_id,
         sum(case when invoicetype in ('invoiceout','creditin') then invoicetotal else -invoicetotal end) as amount
    from invoicing.invoices where invoicestatus in ('open','paid') group by 1, 2),
allocated as (
  select p.org_id, p.partner_id, sum(case when p.direction = 'in' then -a.amount else a.amount end) as amount
    from invoicing.payment_allocations a join invoicing.payments p on p.id = a.payment_id
   where a.status = 'active' and p.status = 'posted' group by 1, 2),
credit as (
  select p.org_id, p.partner_id,
         sum(case when p.direction = 'in' then -1 else 1 end * (p.amount - p.refunded - coalesce(a.sum, 0))) as amount
    from invoicing.payments p
    left join (select payment_id, sum(amount) as sum from invoicing.payment_allocations where status = 'active' group by 1) a
      on a.payment_id = p.id
   where p.status = 'posted' group by 1, 2)
select p.org_id, p.id, p.balance,
       coalesce(d.amount, 0) + coalesce(a.amount, 0) + coalesce(c.amount, 0) as expected,
       coalesce(d.amount, 0) as documents, coalesce(a.amount, 0) as allocations, coalesce(c.amount, 0) as credit
  from partners.partners p
  left join docs d on d.org_id = p.org_id and d.partner_id = p.id
  left join allocated a on a.org_id = p.org_id and a.partner_id = p.id
  left join credit c on c.org_id = p.org_id and c.partner_id = p.id`;

/** The payments each create key left (by its `reference` marker), with their allocations. */
const BY_KEY = `
select p.reference, p.id, p.amount,
       coalesce(json_agg(json_build_object('invoice_id', a.invoice_id, 'amount', a.amount) order by a.id)
                filter (where a.id is not null), '[]') as allocations
  from invoicing.payments p left join invoicing.payment_allocations a on a.payment_id = p.id and a.status = 'active'
 where p.reference = any($1) group by p.reference, p.id`;

interface KeyRow {
  reference: string;
  id: number;
  amount: string;
  allocations: Array<{ invoice_id: number; amount: string | number }>;
}

/**
 * Cash application under faults (issue 31): no allocation booked twice, every document's paid amount
 * the sum of its allocations, every payment's allocated amount the sum of its own, each 2xx payment
 * allocated exactly as asked (a refused one, which must leave no payment, is the writes check's),
 * and each partner's balance = documents − allocations − unallocated credit.
 */
export const allocationsCheck: Check = {
  name: 'allocations',
  title: 'no allocation booked twice; paid amounts = allocations; balance = documents − allocations − credit',
  async run(ctx) {
    const violations: Violation[] = [];
    const twice = await queryEventually<Record<string, unknown>>(ctx.pool, TWICE);
    if (twice.length) violations.push({ message: `${twice.length} payments allocated twice to one document`, evidence: examples(twice) });
    const paid = await queryEventually<Record<string, unknown>>(ctx.pool, PAID);
    if (paid.length)
      violations.push({
        message: `${paid.length} documents whose paid amount is not the sum of their allocations (or exceeds their total)`,
        evidence: examples(paid),
      });
    const payments = await queryEventually<Record<string, unknown>>(ctx.pool, PAYMENTS);
    if (payments.length)
      violations.push({
        message: `${payments.length} payments whose allocated amount is not the sum of their allocations (or exceeds the payment)`,
        evidence: examples(payments),
      });

    const recs = byOp(ctx.client.writes, OPS.paymentCreate);
    const rows = await queryEventually<KeyRow>(ctx.pool, BY_KEY, [recs.map((r) => r.key)]);
    const byKey = new Map(rows.map((r) => [r.reference, r]));
    const unlike: unknown[] = [];
    let allocationsBooked = 0;
    for (const rec of recs) {
      const row = byKey.get(rec.key);
      if (!row) continue;
      allocationsBooked += row.allocations.length;
      if (settled(rec).outcome !== 'ok') continue;
      const asked = (rec.body['allocations'] as Array<{ invoice_id: number; amount: number }>).map(
        (a) => `${a.invoice_id}:${cents(a.amount)}`,
      );
      const booked = row.allocations.map((a) => `${a.invoice_id}:${cents(a.amount)}`);
      if (asked.join() !== booked.join() || cents(row.amount) !== cents(rec.body['amount']))
        unlike.push({ key: rec.key, payment_id: row.id, asked, booked, amount: row.amount, asked_amount: rec.body['amount'] });
    }
    if (unlike.length)
      violations.push({
        message: `${unlike.length} payments answered 2xx but allocated otherwise than asked`,
        evidence: examples(unlike),
      });

    const balances = await queryEventually<{ org_id: number; id: number; balance: string; expected: string }>(ctx.pool, BALANCES);
    const off = balances.filter((b) => cents(b.balance) !== cents(b.expected));
    if (off.length)
      violations.push({
        message: `${off.length} partners' balance differs from their documents less allocations less unallocated credit`,
        evidence: examples(off),
      });
    const ok = recs.filter((r) => settled(r).outcome === 'ok').length;
    return {
      summary: `${ok}/${recs.length} payments with allocations ok, ${allocationsBooked} of their allocations booked; ${balances.length} partners`,
      violations,
    };
  },
};
