import { queryEventually } from '../database';
import { OPS } from '../load';
import { byOp, examples, settled, type Check, type Violation } from './types';

/** Invoices whose letters are not levels 1..n once each: a level sent twice, or one skipped. */
const LEVELS = `
select org_id, invoice_id, array_agg(level order by level) as levels
  from invoicing.dunning_letters group by 1, 2
 having count(*) <> max(level) or min(level) <> 1 or count(distinct level) <> count(*)`;

/**
 * Letters whose fee is not invoiced exactly once: a letter with a fee has one fee invoice (its
 * `sourceid`) and names it, a letter without one has none; each fee invoice is validated (open or
 * paid) and posted by one journal entry, for the letter's fee.
 */
const FEES = `
select l.org_id, l.id as letter_id, l.fee::text, l.fee_invoice_id,
       count(i.id)::int as invoices,
       coalesce(array_agg(i.id order by i.id) filter (where i.id is not null), '{}') as invoice_ids,
       coalesce(array_agg(i.invoicestatus) filter (where i.id is not null), '{}') as statuses,
       coalesce(array_agg(i.invoicetotal::text) filter (where i.id is not null), '{}') as totals,
       coalesce(sum((select count(*) from invoicing.journal_entries j where j.invoice_id = i.id and j.kind = 'invoice')), 0)::int as postings
  from invoicing.dunning_letters l
  left join invoicing.invoices i on i.org_id = l.org_id and i.sourcetype = 'dunning_letter' and i.sourceid = l.id::text
 group by l.org_id, l.id, l.fee, l.fee_invoice_id`;

interface FeeRow {
  org_id: number;
  letter_id: number;
  fee: string;
  fee_invoice_id: number | null;
  invoices: number;
  invoice_ids: number[];
  statuses: string[];
  totals: string[];
  postings: number;
}

/**
 * Reminders under faults (issue 45): however runs are repeated, retried, raced or killed half-way,
 * each invoice gets each level's letter once and in order, each letter's fee is one invoice, posted
 * once for exactly the fee, and every letter a 2xx run answered is stored.
 */
export const dunningCheck: Check = {
  name: 'dunning',
  title: 'reminder letters once per invoice and level, in order; each fee invoiced and posted once',
  async run(ctx) {
    const violations: Violation[] = [];
    const skipped = await queryEventually<{ org_id: number; invoice_id: number; levels: number[] }>(ctx.pool, LEVELS);
    if (skipped.length)
      violations.push({ message: `${skipped.length} invoices whose letters are not levels 1..n once each`, evidence: examples(skipped) });

    const fees = await queryEventually<FeeRow>(ctx.pool, FEES);
    const wrong = fees.filter((r) => {
      const charged = Number(r.fee) > 0;
      if (!charged) return r.invoices !== 0 || r.fee_invoice_id !== null;
      return (
        r.invoices !== 1 ||
        r.fee_invoice_id !== r.invoice_ids[0] ||
        !['open', 'paid'].includes(r.statuses[0] ?? '') ||
        Number(r.totals[0]) !== Number(r.fee) ||
        r.postings !== 1
      );
    });
    if (wrong.length)
      violations.push({ message: `${wrong.length} letters whose fee is not invoiced and posted once`, evidence: examples(wrong) });

    // Every letter a run answered with a 2xx is stored (a run killed before its commit answered nothing).
    const answered = byOp(ctx.client.writes, OPS.dunningRun).flatMap((rec) => {
      const reply = settled(rec).reply as { letters?: Array<{ id: number | null }> } | undefined;
      return settled(rec).outcome === 'ok' ? (reply?.letters ?? []).map((l) => l.id) : [];
    });
    const stored = new Set(fees.map((r) => r.letter_id));
    const lost = answered.filter((id) => id === null || !stored.has(id));
    if (lost.length) violations.push({ message: `${lost.length} letters answered by a run but not stored`, evidence: examples(lost) });

    const runs = byOp(ctx.client.writes, OPS.dunningRun);
    if (runs.some((r) => settled(r).outcome === 'ok') && fees.length === 0)
      violations.push({ message: 'runs answered 2xx but no letter is stored: every run follows an invoice overdue for weeks' });
    const withFee = fees.filter((r) => Number(r.fee) > 0).length;
    return {
      summary: `${runs.length} runs (${runs.filter((r) => settled(r).outcome === 'ok').length} 2xx), ${fees.length} letters, ${withFee} fee invoices`,
      violations,
    };
  },
};
