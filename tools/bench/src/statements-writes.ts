import pg from 'pg';
import { consumers, serviceNames } from '@bo/contracts';
import { CURRENCY, Fixtures, LINES, ORG_ID } from './fixtures';
import { OBSERVER_APP, tally, type CountedStatement, type StatementCount } from './statements-counter';

/**
 * The writes whose statements are counted over the whole system, per request, each with its budget
 * (issue 46: what a write at the floor's shape costs, load → decide → store) and its ceiling: the
 * budget where the code meets it, else what it costs today, so any regression fails the budget test
 * while the gap stays in view (tests/budget/statement-budget.e2e.test.ts; docs/performance.md,
 * "Statements per request"). Writes whose events reach the partners ledger pay its load and its
 * store per batch.
 */
export const STATEMENT_BUDGETS = {
  'create-partner': { title: 'create partner', budget: 3, ceiling: 3 },
  'update-partner': { title: 'update partner', budget: 3, ceiling: 3 },
  'create-invoice': { title: 'create invoice', budget: 4, ceiling: 4 },
  'validate-invoice': { title: 'validate invoice, with its consumers', budget: 8, ceiling: 8 },
  'register-payment': { title: 'register payment', budget: 5, ceiling: 5 },
  'create-payment': { title: 'create payment, 3 allocations', budget: 6, ceiling: 6 },
  'stock-adjustment': { title: 'stock adjustment', budget: 4, ceiling: 4 },
  'quotation-convert': { title: 'convert a quotation to an invoice', budget: 8, ceiling: 8 },
} as const;

export type WriteName = keyof typeof STATEMENT_BUDGETS;

/** A write as counted: what its requests need is made first (`prepare`), outside the counted window. */
export interface CountedWrite {
  name: WriteName;
  prepare(count: number): Promise<void>;
  request(i: number): Promise<unknown>;
}

const today = () => new Date().toISOString().slice(0, 10);

/** The counted writes over the bench's fixtures, each request of the bench's own shape (scenarios.ts). */
export function countedWrites(f: Fixtures): CountedWrite[] {
  const api = f.api;
  const drafts: number[] = [];
  let open: number[] = [];
  let triples: Array<{ partner: number; invoices: number[] }> = [];
  let quotations: number[] = [];
  let stock: { ids: number[]; location: string } = { ids: [], location: '' };
  let adjustments = 0;
  const partner = async (i: number) => {
    const partners = await f.partners();
    return partners[i % partners.length] as number;
  };
  return [
    {
      name: 'create-partner',
      prepare: () => f.partners().then(() => undefined),
      request: (i) =>
        api.ok('/crm/editpatner', {
          org_id: ORG_ID,
          userid: 'bench',
          action: 'create',
          partnername: `Counted partner ${i}`,
          partner_type: 'both',
          credit_limit: 100,
        }),
    },
    {
      name: 'update-partner',
      prepare: () => f.partners().then(() => undefined),
      request: async (i) =>
        api.ok('/crm/editpatner', {
          org_id: ORG_ID,
          userid: 'bench',
          action: 'edit',
          partner_id: await partner(i),
          notes: `Counted edit ${i}`,
          phone: `+1 555 01${String(i % 100).padStart(2, '0')}`,
        }),
    },
    {
      name: 'create-invoice',
      prepare: () => Promise.resolve(),
      request: async (i) => drafts.push(await f.createInvoice(await partner(i))),
    },
    {
      name: 'validate-invoice',
      // Drafts the create-invoice write made, and more if it made fewer.
      prepare: async (count) => {
        for (let i = drafts.length; i < count; i++) drafts.push(await f.createInvoice(await partner(i)));
      },
      request: async () => {
        const id = drafts.shift() as number;
        await f.validate(id);
        open.push(id);
      },
    },
    {
      name: 'register-payment',
      prepare: async (count) => {
        for (let i = open.length; i < count; i++) {
          const id = await f.createInvoice(await partner(i));
          await f.validate(id);
          open.push(id);
        }
        open = open.slice(-count);
      },
      request: (i) =>
        api.ok('/invoicing/invoice/new', {
          org_id: ORG_ID,
          id: open[i % open.length],
          register_payment: true,
          amount: 0.01,
          payment_date: today(),
        }),
    },
    {
      name: 'create-payment',
      prepare: async () => void (triples = await f.partnerTriples(8)),
      request: (i) => {
        const t = triples[i % triples.length] as (typeof triples)[number];
        return api.ok('/invoicing/payments', {
          org_id: ORG_ID,
          action: 'create',
          amount: 0.03,
          currency: CURRENCY,
          direction: 'in',
          method: 'bank_transfer',
          payment_date: today(),
          partner: t.partner,
          allocations: t.invoices.map((id) => ({ invoice_id: id, amount: 0.01 })),
        });
      },
    },
    {
      name: 'stock-adjustment',
      prepare: async () => void (stock = await f.products()),
      // Products in turn, set to 11 and 12 alternately (from 10): every adjustment moves stock.
      request: () => {
        const n = adjustments++;
        return api.ok('/inventory/ops/getdata', {
          org_id: ORG_ID,
          userid: 'bench',
          action: 'stock_adjustment',
          product_id: stock.ids[n % stock.ids.length],
          qty_locations: { [stock.location]: 11 + (Math.floor(n / stock.ids.length) % 2) },
          adjustment_type: 'count',
          reference: 'bench',
        });
      },
    },
    {
      name: 'quotation-convert',
      prepare: async (count) => {
        quotations = [];
        for (let i = 0; i < count; i++) {
          const body = await api.ok<{ quotation: { id: number } }>('/sales/addline', {
            org_id: ORG_ID,
            userid: 'bench',
            action: 'create_quotation',
            partner: String(await partner(i)),
            quotation_type: 'quotation',
            quotation_status: 'draft',
            quotation_date: `${today()}T10:00:00`,
            valid_until: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
            line_items: LINES,
          });
          quotations.push(body.quotation.id);
        }
      },
      request: () =>
        api.ok('/sales/addline', {
          org_id: ORG_ID,
          userid: 'bench',
          action: 'convert_to_invoice',
          quotation_id: quotations.shift(),
          invoicetype: 'invoiceout',
        }),
    },
  ];
}

/** Where the counted statements go: `open` starts a window, and the function it answers ends it with the window's statements. */
export type StatementWindow = () => () => CountedStatement[];

/** Requests of each write before its window: the first of a kind fills caches (API key, settings, rate-limit lease). */
const WARM = 3;

/**
 * Each write's statements per request: `requests` requests one at a time, each followed by a wait
 * until every event it set off is published and taken by every consumer (`settle`), so a request's
 * count holds all its effects and no two requests share a batch: the count does not depend on timing.
 * With `together` above 1 the requests go in groups of that many at once, each group then settled:
 * what batches amortize under load (the relay's marks, a consumer's statements per batch) is shared
 * by the group, so the figure is nearer what a request costs under load, and depends on timing.
 */
export async function measureWrites(
  writes: readonly CountedWrite[],
  opts: {
    requests: number;
    window: StatementWindow;
    settle: (marked?: 'marked') => Promise<void>;
    only?: readonly string[];
    together?: number;
  },
): Promise<Record<string, StatementCount>> {
  const result: Record<string, StatementCount> = {};
  for (const write of writes) {
    if (opts.only && !opts.only.includes(write.name)) continue;
    await write.prepare(opts.requests + WARM);
    for (let i = 0; i < WARM; i++) {
      await write.request(opts.requests + i);
      await opts.settle();
    }
    // Every event before the window marked sent: no mark of them is left to some statement in it.
    await opts.settle('marked');
    const close = opts.window();
    const together = opts.together ?? 1;
    for (let i = 0; i < opts.requests; i += together) {
      const group = Array.from({ length: Math.min(together, opts.requests - i) }, (_, k) => i + k);
      await Promise.all(group.map((n) => write.request(n)));
      await opts.settle();
    }
    result[write.name] = tally(close(), opts.requests);
  }
  return result;
}

/**
 * A wait until every event written so far in the system's database is published and in the inbox
 * of each consumer that takes every event of its type (a routed consumer is owed none), and, when
 * asked (`marked`), marked sent, on a connection the count leaves out (OBSERVER_APP).
 */
export function settledOf(
  databaseUrl: string,
  timeoutMs = 20_000,
): { settle: (marked?: 'marked') => Promise<void>; end: () => Promise<void> } {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: OBSERVER_APP });
  const connected = client.connect();
  const written = serviceNames.map((s) => `select event_id, type, published_at, claimed_until from "${s}".outbox`).join(' union all ');
  const owed = consumers
    .filter((c) => !c.routed)
    .map(
      (c) => `(select count(*) from o where o.type = any(array[${c.events.map((e) => `'${e}'`).join(',')}]::text[])
                 and not exists (select 1 from "${c.service}".inbox i where i.consumer = '${c.name}' and i.event_id = o.event_id))`,
    );
  // Unpublished and unclaimed is what the relay's poll still owes; a claimed row is its writer's to
  // publish, and its consumers' inbox (owed) says when it arrived. Its mark sent rides on a later
  // store of the service (outbox.ts, ridingMarks), so it is no part of this request's statements.
  const owedByPoll = 'published_at is null and (claimed_until is null or claimed_until <= clock_timestamp())';
  const sqlOf = (unmarked: string) =>
    `with o as (${written}) select (select count(*) from o where ${unmarked}) + ${owed.join(' + ')} as behind`;
  return {
    async settle(marked) {
      await connected;
      const deadline = Date.now() + timeoutMs;
      const sql = sqlOf(marked ? 'published_at is null' : owedByPoll);
      for (;;) {
        const { rows } = await client.query<{ behind: string }>(sql);
        if (Number(rows[0]?.behind) === 0) return;
        if (Date.now() > deadline) throw new Error(`events did not settle within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    end: () => connected.then(() => client.end()),
  };
}

/** The counts as a Markdown table beside each write's ceiling and budget, then, with `shapes`, each write's statements. */
export function statementTable(counts: Record<string, StatementCount>, opts: { shapes?: boolean } = {}): string {
  const rows = Object.entries(counts).map(([name, c]) => {
    const b = STATEMENT_BUDGETS[name as WriteName];
    return `| ${b.title} | ${c.perRequest} | ${c.roundTrips} | ${b.ceiling} | ${b.budget} |`;
  });
  const lines = ['| write | statements per request | round trips | ceiling | budget (issue 46) |', '|---|---|---|---|---|', ...rows];
  if (opts.shapes) {
    for (const [name, c] of Object.entries(counts)) {
      lines.push('', `${name}: ${c.perRequest} statements per request (${c.idle} idle polls left out)`);
      for (const s of c.statements) lines.push(`  ${s.perRequest.toFixed(2)}  ${s.sql}`);
    }
  }
  return lines.join('\n');
}
