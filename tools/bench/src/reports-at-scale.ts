import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { inParallel } from './api';
import { ORG_ID, type Fixtures } from './fixtures';
import { log } from './log';
import { percentile, round } from './stats';
import { ORG } from './system';

export const REPORTS_AT_SCALE = 'reports-at-scale';
/** The journal lines the organization holds when its reports are measured (BENCH_REPORT_LINES overrides). */
export const REPORT_LINES = Number(process.env.BENCH_REPORT_LINES ?? 1_000_000);
/** Requests of each report, one at a time, after 5 to warm it (BENCH_REPORT_REQUESTS overrides). */
const REQUESTS = Number(process.env.BENCH_REPORT_REQUESTS ?? 60);
const PAID_PER_PARTNER = 4;
/** The days (back from today) whose copies keep their unpaid invoice: with 50 partners, about 1,000 open invoices. */
const OPEN_DAYS = 20;

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** The tables a day of trade writes, parents first, and the columns of each that hold another row's id. */
const CLONED: Array<{ table: string; ids: string[] }> = [
  { table: 'invoices', ids: ['id', 'parent_id', 'credits_invoice_id', 'write_off_journal_entry_id'] },
  { table: 'invoice_lines', ids: ['id', 'invoice_id'] },
  { table: 'payments', ids: ['id', 'invoice_id', 'journal_entry_id', 'void_journal_entry_id'] },
  { table: 'journal_entries', ids: ['id', 'invoice_id', 'payment_id'] },
  { table: 'journal_lines', ids: ['id', 'entry_id'] },
  { table: 'payment_allocations', ids: ['id', 'payment_id', 'credit_note_id', 'invoice_id', 'journal_entry_id'] },
];
/** Columns unique within the organization: each copy suffixes them. */
const SUFFIXED = new Set(['invoicenumber', 'operation_key', 'reference', 'payment_reference']);

export interface ReportTiming {
  report: string;
  requests: number;
  p50: number;
  p95: number;
  max: number;
  replyBytes: number;
  /** Requests answered other than 200 (a 504 is the gateway's 5 s timeout), left out of the percentiles. */
  failed: number;
}

export interface ReportsAtScale {
  lines: number;
  documents: number;
  openDocuments: number;
  seedSeconds: number;
  timings: ReportTiming[];
}

/**
 * A day of trade made through the API: for each of the 50 seeded customers, 4 invoices validated
 * and paid in full (`register_payment`) and one validated and left open. What the services wrote
 * for it is the template the bulk load copies.
 */
async function seedTemplateDay(f: Fixtures): Promise<{ paid: number[]; open: number[] }> {
  const partners = await f.partners();
  const ids = await inParallel(partners.length * (PAID_PER_PARTNER + 1), 4, async (i) => {
    const partner = partners[i % partners.length] as number;
    const id = await f.createInvoice(partner);
    const validated = await f.api.ok<{ invoice: { invoicetotal: number } }>('/invoicing/invoice/new', {
      org_id: ORG_ID,
      id,
      validate_invoice: true,
    });
    const pays = i < partners.length * PAID_PER_PARTNER;
    if (pays) {
      await f.api.ok('/invoicing/invoice/new', {
        org_id: ORG_ID,
        id,
        register_payment: true,
        amount: validated.invoice.invoicetotal,
        payment_date: day(0),
        journal: 'Bank',
      });
    }
    return { id, pays };
  });
  return { paid: ids.filter((x) => x.pays).map((x) => x.id), open: ids.filter((x) => !x.pays).map((x) => x.id) };
}

/**
 * The bulk load: the template day's rows, copied by SQL into the days before it until the
 * organization's journal holds `lines` lines. Each copy is the template as the services wrote it,
 * every id moved by the copy's offset (so each row names its own copy's rows), every date and time
 * moved back by the copy's number of days, and the organization's unique texts (document numbers,
 * their entries' references, operation keys) suffixed with the copy. The copies of the last
 * `OPEN_DAYS` days keep their unpaid invoice; older ones carry the paid invoices alone. Then each
 * table's sequence moves past the copies, and the statistics are taken.
 */
async function copyTemplate(databaseUrl: string, template: { paid: number[]; open: number[] }, lines: number) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('set search_path = invoicing');
    const all = [...template.paid, ...template.open];
    // The template's rows of each table, as id lists (the open invoices' rows apart).
    const rowsOf = async (invoices: number[]) => {
      const q = async (sql: string, params: unknown[]) => (await db.query<{ id: number }>(sql, params)).rows.map((r) => r.id);
      const payments = await q(
        'select distinct payment_id as id from payment_allocations where invoice_id = any($1) and payment_id is not null',
        [invoices],
      );
      const entries = await q('select id from journal_entries where invoice_id = any($1) or payment_id = any($2)', [invoices, payments]);
      return {
        invoices,
        invoice_lines: await q('select id from invoice_lines where invoice_id = any($1)', [invoices]),
        payments,
        journal_entries: entries,
        journal_lines: await q('select id from journal_lines where entry_id = any($1)', [entries]),
        payment_allocations: await q('select id from payment_allocations where invoice_id = any($1)', [invoices]),
      } as Record<string, number[]>;
    };
    const paid = await rowsOf(template.paid);
    const open = await rowsOf(template.open);
    const perDay = paid.journal_lines!.length;
    const openLines = open.journal_lines!.length;
    const existing = Number((await db.query<{ n: string }>('select count(*) as n from journal_lines')).rows[0]?.n ?? 0);
    const days = Math.max(1, Math.ceil((lines - existing - OPEN_DAYS * openLines) / perDay));
    const { rows: maxRows } = await db.query<{ m: number }>(
      `select greatest(${CLONED.map((c) => `(select coalesce(max(id), 0) from ${c.table})`).join(', ')}) as m`,
    );
    const stride = Number(maxRows[0]?.m ?? 0) + 1;
    if (stride * (days + 1) > 2 ** 31 - 1) throw new Error(`bench: ${days} copies of ids up to ${stride} overflow an integer`);

    // Payments and their entries name each other (the services insert both in one statement): the
    // foreign keys are not checked until they are in. From the journal lines on, the keys are checked
    // and the triggers fire as for the services' own writes (the VAT daily totals, migration 030),
    // each slice of copies committed on its own as postings are, the statistics taken as the table
    // grows (the trigger's statement is planned against them).
    await db.query('set session_replication_role = replica');
    for (const { table, ids } of CLONED) {
      if (table === 'journal_lines') {
        await db.query('set session_replication_role = origin');
        await db.query('analyze journal_entries; analyze invoices; analyze journal_lines');
      }
      const { rows: cols } = await db.query<{ column_name: string; data_type: string }>(
        `select column_name, data_type from information_schema.columns
          where table_schema = 'invoicing' and table_name = $1 order by ordinal_position`,
        [table],
      );
      const exprs = cols.map(({ column_name: c, data_type: t }) => {
        const col = `t.${c}`;
        if (ids.includes(c)) return `${col} + k * ${stride}`;
        if (SUFFIXED.has(c)) return `case when ${col} is null then null else ${col} || '-C' || k end`;
        if (t === 'date') return `${col} - k`;
        if (t.startsWith('timestamp')) return `${col} - make_interval(days => k)`;
        return col;
      });
      const list = cols.map((c) => c.column_name).join(', ');
      const insert = async (rows: number[], upTo: number) => {
        // The journal lines in slices of copies, as postings come: the VAT totals' trigger reads each
        // statement's new lines, and a million at once spill to disk.
        const slice = table === 'journal_lines' ? 20 : upTo;
        for (let from = 1; from <= upTo; from += slice) {
          await db.query(
            `insert into ${table} (${list}) select ${exprs.join(', ')} from ${table} t cross join generate_series($2::int, $3::int) k where t.id = any($1)`,
            [rows, from, Math.min(upTo, from + slice - 1)],
          );
          if (table === 'journal_lines' && ((from - 1) / slice) % 10 === 9) await db.query('analyze journal_lines');
        }
      };
      await insert(paid[table]!, days);
      await insert(open[table]!, Math.min(OPEN_DAYS, days));
      await db.query(`select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${table}))`);
    }
    for (const { table } of CLONED) await db.query(`analyze ${table}`);
    const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]?.n ?? 0);
    return {
      lines: await count('select count(*) as n from journal_lines'),
      documents: await count(`select count(*) as n from invoices where org_id = ${ORG} and invoicestatus <> 'draft'`),
      openDocuments: await count(`select count(*) as n from invoices where org_id = ${ORG} and invoicestatus = 'open'`),
      all,
    };
  } finally {
    await db.end();
  }
}

/** Times `n` requests of one body, one at a time, after five to warm the path. */
async function timeReport(f: Fixtures, report: string, body: Record<string, unknown>): Promise<ReportTiming> {
  const latencies: number[] = [];
  let replyBytes = 0;
  let failed = 0;
  for (let i = 0; i < REQUESTS + 5; i++) {
    const started = performance.now();
    const res = await fetch(`${f.api.base}/invoicing/reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${f.api.token}` },
      body: JSON.stringify({ org_id: ORG_ID, ...body }),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status !== 200) {
      log(`${REPORTS_AT_SCALE}: ${report} answered ${res.status}: ${text.slice(0, 200)}`);
      failed += 1;
      // Three failures in a row: the report does not answer at this size.
      if (failed >= 3 && latencies.length === 0) break;
      continue;
    }
    replyBytes = text.length;
    if (i >= 5) latencies.push(ms);
  }
  latencies.sort((a, b) => a - b);
  return {
    report,
    requests: latencies.length,
    p50: round(percentile(latencies, 50), 1),
    p95: round(percentile(latencies, 95), 1),
    max: round(latencies[latencies.length - 1] ?? 0, 1),
    replyBytes,
    failed,
  };
}

/**
 * The reports of an organization whose journal holds `REPORT_LINES` lines (about 2.3 years of 200
 * paid invoices a day and the last 20 days' unpaid ones), each asked `REQUESTS` times in turn over
 * HTTP through the gateway, one at a time: aged receivables today, a customer's statement of the
 * last month and of the last year, the VAT report of the last month and of the last year.
 */
export async function measureReportsAtScale(f: Fixtures, databaseUrl: string): Promise<ReportsAtScale> {
  const started = performance.now();
  log(`${REPORTS_AT_SCALE}: seeding a template day through the API`);
  const template = await seedTemplateDay(f);
  log(`${REPORTS_AT_SCALE}: copying it by SQL to ${REPORT_LINES} journal lines`);
  const loaded = await copyTemplate(databaseUrl, template, REPORT_LINES);
  const seedSeconds = round((performance.now() - started) / 1000, 1);
  log(
    `${REPORTS_AT_SCALE}: ${loaded.lines} journal lines, ${loaded.documents} documents (${loaded.openDocuments} open) in ${seedSeconds} s`,
  );
  const [partner] = await f.partners();
  const timings: ReportTiming[] = [];
  const asks: Array<[string, Record<string, unknown>]> = [
    ['aged receivables, today', { report: 'aged_receivables' }],
    ['statement, last month', { report: 'statement', partner, date_from: day(-30), date_to: day(0) }],
    ['statement, last year', { report: 'statement', partner, date_from: day(-365), date_to: day(0) }],
    ['VAT report, last month', { report: 'vat', date_from: day(-30), date_to: day(0) }],
    ['VAT report, last year', { report: 'vat', date_from: day(-365), date_to: day(0) }],
  ];
  for (const [report, body] of asks) {
    log(`${REPORTS_AT_SCALE}: ${report}`);
    timings.push(await timeReport(f, report, body));
  }
  return { lines: loaded.lines, documents: loaded.documents, openDocuments: loaded.openDocuments, seedSeconds, timings };
}

/** The markdown table of a measurement. */
export function formatReportsAtScale(r: ReportsAtScale): string {
  return [
    `### Reports at scale: ${r.lines.toLocaleString('en')} journal lines, ${r.documents.toLocaleString('en')} documents (${r.openDocuments} open), loaded in ${r.seedSeconds} s`,
    '',
    '| report | answered | failed | p50 ms | p95 ms | max ms | reply bytes |',
    '|---|---|---|---|---|---|---|',
    ...r.timings.map((t) => `| ${t.report} | ${t.requests} | ${t.failed} | ${t.p50} | ${t.p95} | ${t.max} | ${t.replyBytes} |`),
    '',
  ].join('\n');
}
