import { queryEventually } from '../database';
import { RECURRING } from '../load';
import { examples, type Check, type Violation } from './types';

/**
 * Numbers per organization and series are unique and gapless: the numbers `PREFIX-n` of a series
 * are exactly 1..max, and the series counter stands at max (the load never types a number, so
 * every number is generated).
 */
export const numbersCheck: Check = {
  name: 'numbers',
  title: 'document numbers per organization and series unique and gapless',
  async run(ctx) {
    const violations: Violation[] = [];
    const lines: string[] = [];
    const sources = [
      { schema: 'invoicing', sql: 'select org_id, invoicenumber as number from invoicing.invoices' },
      { schema: 'sales', sql: 'select org_id, quotation_number as number from sales.quotations' },
    ];
    for (const src of sources) {
      const rows = await queryEventually<{ org_id: number; number: string }>(ctx.pool, src.sql);
      const counters = await queryEventually<{ org_id: number; series: string; last_value: string }>(
        ctx.pool,
        `select org_id, series, last_value from ${src.schema}.document_sequences`,
      );
      const series = new Map<string, number[]>();
      const odd: string[] = [];
      for (const r of rows) {
        const m = /^([A-Z]+-)(\d+)$/.exec(r.number);
        if (!m) {
          odd.push(r.number);
          continue;
        }
        const k = `${r.org_id}/${m[1]}`;
        series.set(k, [...(series.get(k) ?? []), Number(m[2])]);
      }
      for (const [k, nums] of series) {
        nums.sort((a, b) => a - b);
        const max = nums[nums.length - 1] ?? 0;
        const seen = new Set<number>();
        const dups = nums.filter((n) => (seen.has(n) ? true : (seen.add(n), false)));
        const gaps: number[] = [];
        for (let n = 1; n <= max && gaps.length < 20; n++) if (!seen.has(n)) gaps.push(n);
        const [org, prefix] = k.split('/');
        const counter = counters.find((c) => String(c.org_id) === org && c.series === prefix);
        if (dups.length)
          violations.push({ message: `${src.schema} ${k}: ${dups.length} numbers used twice`, evidence: examples(dups, 10) });
        if (gaps.length) violations.push({ message: `${src.schema} ${k}: numbers missing from 1..${max}`, evidence: gaps });
        if (counter && Number(counter.last_value) !== max)
          violations.push({ message: `${src.schema} ${k}: counter at ${counter.last_value}, highest number ${max}` });
        lines.push(`${src.schema} ${k}1..${max}`);
      }
      if (odd.length) violations.push({ message: `${src.schema}: ${odd.length} numbers outside any series`, evidence: examples(odd) });
    }
    return { summary: lines.join(', '), violations };
  },
};

/**
 * Each quotation converted at most once, pointing to exactly one invoice made for it that carries
 * exactly its lines, and no invoice made for a quotation that is not converted (an orphan draft
 * from a failed conversion).
 */
export const conversionsCheck: Check = {
  name: 'conversions',
  title: 'each quotation converted at most once, to exactly one invoice; no orphan invoice',
  async run(ctx) {
    const rows = await queryEventually<{
      id: number;
      org_id: number;
      quotation_number: string;
      status: string;
      invoice_id: number | null;
      invoicenumber: string | null;
      invoices: number[] | null;
      numbers: string[] | null;
    }>(
      ctx.pool,
      `select q.id, q.org_id, q.quotation_number, q.status, q.invoice_id, q.invoicenumber,
              array_agg(i.id order by i.id) filter (where i.id is not null) as invoices,
              array_agg(i.invoicenumber order by i.id) filter (where i.id is not null) as numbers
         from sales.quotations q
         left join invoicing.invoices i on i.org_id = q.org_id and i.converted_from_quotation_id = q.id
        group by q.id order by q.id`,
    );
    const many: unknown[] = [];
    const dangling: unknown[] = [];
    const orphans: unknown[] = [];
    let converted = 0;
    for (const q of rows) {
      const invoices = (q.invoices ?? []).map(Number);
      if (invoices.length > 1) many.push({ quotation_id: q.id, status: q.status, invoices });
      if (q.status === 'converted') {
        converted += 1;
        const number = q.numbers?.[invoices.indexOf(Number(q.invoice_id))];
        if (invoices.length !== 1 || Number(q.invoice_id) !== invoices[0] || number !== q.invoicenumber) {
          dangling.push({
            quotation_id: q.id,
            invoice_id: q.invoice_id,
            invoicenumber: q.invoicenumber,
            invoices_for_it: invoices,
            their_numbers: q.numbers,
          });
        }
      } else if (invoices.length > 0) {
        orphans.push({ quotation_id: q.id, quotation_number: q.quotation_number, status: q.status, invoices, numbers: q.numbers });
      }
    }
    const strays = await queryEventually<{ id: number; sourceid: string }>(
      ctx.pool,
      `select i.id, i.converted_from_quotation_id::text as sourceid from invoicing.invoices i where i.converted_from_quotation_id is not null
          and not exists (select 1 from sales.quotations q where q.org_id = i.org_id and q.id = i.converted_from_quotation_id)`,
    );
    // The invoice carries exactly the quotation's lines (the load never adds lines to a converted invoice).
    const content = await queryEventually<Record<string, unknown>>(
      ctx.pool,
      `select * from (
         select q.id as quotation_id, q.invoice_id, q.total as quotation_total, i.invoicetotal as invoice_total,
                (select count(*) from sales.quotation_lines l where l.quotation_id = q.id) as quotation_lines,
                (select count(*) from invoicing.invoice_lines l where l.invoice_id = i.id) as invoice_lines
           from sales.quotations q join invoicing.invoices i on i.id = q.invoice_id and i.org_id = q.org_id
          where q.status = 'converted') x
        where quotation_total <> invoice_total or quotation_lines <> invoice_lines`,
    );
    const violations: Violation[] = [];
    if (content.length)
      violations.push({
        message: `${content.length} converted quotations whose invoice does not carry exactly their lines`,
        evidence: examples(content),
      });
    if (many.length) violations.push({ message: `${many.length} quotations have more than one invoice`, evidence: examples(many) });
    if (dangling.length)
      violations.push({
        message: `${dangling.length} converted quotations do not point to exactly the one invoice made for them`,
        evidence: examples(dangling),
      });
    if (orphans.length)
      violations.push({
        message: `${orphans.length} quotations not converted have an invoice made for them (orphan drafts)`,
        evidence: examples(orphans),
      });
    if (strays.length)
      violations.push({ message: `${strays.length} invoices name a quotation that does not exist`, evidence: examples(strays) });
    return { summary: `${rows.length} quotations, ${converted} converted`, violations };
  },
};

const DAY = 86_400_000;

/**
 * The scheduler made every child of the load's recurring contracts (daily, started three days ago,
 * three occurrences) exactly once: one child per run date, counters and status to match. The parent
 * bills the start date's period, so the first child runs the day after it.
 */
export const recurringCheck: Check = {
  name: 'recurring',
  title: 'recurring contracts have exactly their due children, one per run date',
  async run(ctx) {
    const parents = await queryEventually<{
      id: number;
      start: string;
      occurrences: number;
      generated: number;
      status: string;
      children: string;
      dates: string;
      run_dates: string[] | null;
    }>(
      ctx.pool,
      `select p.id, p.recurring_start_date::text as start, p.recurring_occurrences as occurrences, p.recurring_generated as generated,
              p.recurring_status as status, count(c.id) as children, count(distinct c.run_date) as dates,
              array_agg(c.run_date::text order by c.run_date) filter (where c.id is not null) as run_dates
         from invoicing.invoices p left join invoicing.invoices c on c.parent_id = p.id
        where p.recurring_enabled and p.parent_id is null and p.recurring_frequency = $1
        group by p.id order by p.id`,
      [RECURRING.frequency],
    );
    const today = Date.parse(new Date().toISOString().slice(0, 10));
    const wrong: unknown[] = [];
    let children = 0;
    for (const p of parents) {
      const due = Math.min(p.occurrences, Math.floor((today - Date.parse(p.start)) / DAY));
      const n = Number(p.children);
      children += n;
      const complete = n === p.occurrences ? p.status === 'completed' : p.status === 'active';
      if (n !== due || Number(p.dates) !== n || p.generated !== n || !complete) {
        wrong.push({
          parent_id: p.id,
          start: p.start,
          due,
          children: n,
          distinct_run_dates: Number(p.dates),
          generated: p.generated,
          status: p.status,
          run_dates: p.run_dates,
        });
      }
    }
    const violations = wrong.length
      ? [{ message: `${wrong.length} recurring contracts do not have exactly their due children`, evidence: examples(wrong) }]
      : [];
    return { summary: `${parents.length} contracts, ${children} children`, violations };
  },
};
