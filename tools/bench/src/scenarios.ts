import { randomUUID } from 'node:crypto';
import { invoicing } from '@bo/contracts';
import { CURRENCY, Fixtures, LINES, ORG_ID, invoiceIdOf, invoiceRequest, type EInvoiceTemplate } from './fixtures';
import { LagProbe } from './lag';
import type { Context, Step } from './load';

/** A run about to start: its size, and the rate its warm-up reached (for sizing one-use pools). */
export interface RunPlan {
  connections: number;
  seconds: number;
  warmRate: number;
}

/** What a run of a one-use pool needs beyond its steps. */
export interface RunSetup {
  /** Stop after this many replies (the pool holds that many records) ... */
  amount?: number;
  /** ... or after this long, whichever comes first. */
  capSeconds?: number;
  lag?: LagProbe;
}

export interface Scenario {
  /** The name `--only` takes. */
  name: string;
  title: string;
  /** The ceiling stand-in it is compared with; scenarios sending the same request and reply share one. */
  ceiling: string;
  /** Seeds what every run of it needs (once per mode). */
  prepare(): Promise<void>;
  /** Its requests, in order (a scenario of two steps sends both on each connection, one after the other). */
  steps(): Step[];
  /** One-use pools: the records the warm-up will take. */
  beforeWarmup?(requests: number): Promise<void>;
  /** One-use pools: seeds the run's records from the warm-up's rate, and says when to stop. */
  beforeRun?(plan: RunPlan): Promise<RunSetup>;
  /**
   * Scenarios whose reads its writes grow (a created partner joins the page and total a list
   * reads): run in turn on one system, as `--alternate` does, each run would read more than the last.
   */
  grows?: readonly string[];
}

/** The names of every scenario, in the order they run; `idempotency-cost` is the bus-level before/after. */
export const scenarioNames = [
  'list-partners',
  'get-invoice',
  'create-partner',
  'create-partner-key',
  'create-invoice',
  'validate-invoice',
  'register-payment',
  'create-payment',
  'quotation-convert',
  'stock-adjustment',
  'import-einvoice',
] as const;
export const IDEMPOTENCY_COST = 'idempotency-cost';

const today = () => new Date().toISOString().slice(0, 10);
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

export const createPartnerBody = JSON.stringify({
  org_id: ORG_ID,
  userid: 'bench',
  action: 'create',
  partnername: 'Bench Partner',
  partner_type: 'both',
  credit_limit: 100,
});

/**
 * Every scenario of one mode over its fixtures. Each request is made to succeed: a non-2xx is an
 * error of the system (or of the bench), counted per scenario.
 */
export function createScenarios(f: Fixtures, databaseUrl: string): Scenario[] {
  const rotate = <T>(items: readonly T[]) => {
    let i = 0;
    return () => items[i++ % items.length] as T;
  };

  const listPartners: Scenario = {
    name: 'list-partners',
    title: 'list partners (25 of 50)',
    ceiling: 'list-partners',
    prepare: async () => void (await f.partners()),
    steps: () => [{ name: 'list', path: '/crm/partners', body: JSON.stringify({ org_id: ORG_ID, page_size: 25 }) }],
  };

  let invoiceToGet = 0;
  const getInvoice: Scenario = {
    name: 'get-invoice',
    title: 'get one invoice (3 lines, paid in part)',
    ceiling: 'get-invoice',
    prepare: async () => {
      const [partner] = await f.partners();
      invoiceToGet = await f.createInvoice(partner as number);
      await f.validate(invoiceToGet);
      await f.api.ok('/invoicing/invoice/new', {
        org_id: ORG_ID,
        id: invoiceToGet,
        register_payment: true,
        amount: 100,
        payment_date: today(),
        journal: 'Bank',
      });
    },
    steps: () => [
      { name: 'get', path: '/invoicing/getinvoice', body: JSON.stringify({ org_id: ORG_ID, id: invoiceToGet, include_items: true }) },
    ],
  };

  const createPartner: Scenario = {
    name: 'create-partner',
    title: 'create partner',
    ceiling: 'create-partner',
    grows: ['list-partners'],
    prepare: () => Promise.resolve(),
    steps: () => [{ name: 'create', path: '/crm/editpatner', body: createPartnerBody }],
  };

  const createPartnerWithKey: Scenario = {
    name: 'create-partner-key',
    title: 'create partner, Idempotency-Key',
    ceiling: 'create-partner',
    grows: ['list-partners'],
    prepare: () => Promise.resolve(),
    steps: () => [
      { name: 'create', path: '/crm/editpatner', body: createPartnerBody, headers: () => ({ 'idempotency-key': randomUUID() }) },
    ],
  };

  let partners: number[] = [];
  const createInvoice: Scenario = {
    name: 'create-invoice',
    title: 'create invoice (3 lines)',
    ceiling: 'create-invoice',
    prepare: async () => void (partners = await f.partners()),
    steps: () => {
      const partner = rotate(partners);
      return [
        {
          name: 'create',
          path: '/invoicing/invoice/new',
          body: () => invoiceRequest(partner()),
          // Its drafts are the validate scenario's pool.
          onReply: (status, body) => {
            const id = status === 200 ? invoiceIdOf(body) : undefined;
            if (id !== undefined) f.drafts.push(id);
          },
        },
      ];
    },
  };

  interface Draft {
    id: number;
    /** Set on the sampled drafts: the partner made for this invoice alone. */
    lagPartner?: number;
  }
  let queue: Draft[] = [];
  let probe: LagProbe | undefined;
  const validateInvoice: Scenario = {
    name: 'validate-invoice',
    title: 'validate invoice',
    ceiling: 'validate-invoice',
    prepare: async () => void (await f.partners()),
    beforeWarmup: async (requests) => {
      probe = undefined;
      // Drafts a previous run left untouched go back to the pool.
      f.drafts.unshift(...queue.filter((d) => d.lagPartner === undefined).map((d) => d.id));
      // Autocannon builds each connection's next request before the run ends: spares for those.
      queue = (await f.takeDrafts(requests + 64)).map((id) => ({ id }));
    },
    beforeRun: async ({ connections, seconds, warmRate }) => {
      const amount = validatePoolSize({ connections, seconds, warmRate });
      const lagCount = Math.min(300, Math.ceil(amount / (connections === 1 ? 2 : 5)));
      const plain = await f.takeDrafts(amount - lagCount + connections * 2 + 16);
      const lags = await f.lagDrafts(lagCount);
      queue = interleave(
        plain.map((id) => ({ id })),
        lags.map((l) => ({ id: l.id, lagPartner: l.partnerId })),
      );
      probe = new LagProbe(databaseUrl);
      await probe.start();
      return { amount, capSeconds: seconds * 2, lag: probe };
    },
    steps: () => [
      {
        name: 'validate',
        path: '/invoicing/invoice/new',
        body: (ctx: Context) => {
          const draft = queue.shift() ?? { id: 0 };
          ctx['draft'] = draft;
          return `{"org_id":"${ORG_ID}","id":${draft.id},"validate_invoice":true}`;
        },
        onReply: (status, _body, ctx) => {
          const draft = ctx['draft'] as Draft | undefined;
          if (status !== 200 || !draft) return;
          if (draft.lagPartner !== undefined) probe?.validated(draft.lagPartner);
          else f.opened.push(draft.id);
        },
      },
    ],
  };

  let payable: number[] = [];
  const registerPayment: Scenario = {
    name: 'register-payment',
    title: 'register payment (0.01 on open invoices)',
    ceiling: 'register-payment',
    // 64 open invoices taken in turn: 32 connections rarely pay the same invoice at once.
    prepare: async () => void (payable = await f.openInvoices(64)),
    steps: () => {
      const invoice = rotate(payable);
      const date = today();
      return [
        {
          name: 'pay',
          path: '/invoicing/invoice/new',
          body: () => `{"org_id":"${ORG_ID}","id":${invoice()},"register_payment":true,"amount":0.01,"payment_date":"${date}"}`,
        },
      ];
    },
  };

  let triples: Array<{ partner: number; invoices: readonly number[] }> = [];
  const createPayment: Scenario = {
    name: 'create-payment',
    title: 'create payment (0.03 allocated to 3 open invoices of a partner)',
    ceiling: 'create-payment',
    // 32 partners with three open invoices each, taken in turn: 32 connections rarely lock the same invoices at once.
    prepare: async () => void (triples = await f.partnerTriples(32)),
    steps: () => {
      const triple = rotate(triples);
      const head = `{"org_id":"${ORG_ID}","userid":"bench","action":"create","amount":0.03,"currency":"${CURRENCY}","direction":"in","method":"bank_transfer","reference":"bench","payment_date":"${today()}","partner":`;
      return [
        {
          name: 'create',
          path: '/invoicing/payments',
          body: () => {
            const { partner, invoices } = triple();
            return `${head}${partner},"allocations":[${invoices.map((id) => `{"invoice_id":${id},"amount":0.01}`).join(',')}]}`;
          },
        },
      ];
    },
  };

  let quotationPartner = 0;
  const quotationConvert: Scenario = {
    name: 'quotation-convert',
    title: 'create + convert quotation (2 requests)',
    ceiling: 'quotation-convert',
    prepare: async () => void (quotationPartner = (await f.partners())[2] as number),
    steps: () => [
      {
        name: 'create',
        path: '/sales/addline',
        body: JSON.stringify({
          org_id: ORG_ID,
          userid: 'bench',
          action: 'create_quotation',
          partner: String(quotationPartner),
          quotation_type: 'quotation',
          quotation_status: 'draft',
          quotation_date: `${today()}T10:00:00`,
          valid_until: inDays(30),
          line_items: LINES,
        }),
        onReply: (status, body, ctx) => {
          const m = status === 200 ? /"quotation":\{"id":(\d+)/.exec(body) : null;
          ctx['quotation'] = m ? Number(m[1]) : 0;
        },
      },
      {
        name: 'convert',
        path: '/sales/addline',
        body: (ctx) =>
          `{"org_id":"${ORG_ID}","userid":"bench","action":"convert_to_invoice","quotation_id":${Number(ctx['quotation'] ?? 0)},"invoicetype":"invoiceout"}`,
      },
    ],
  };

  let stock: { ids: number[]; location: string } = { ids: [], location: '' };
  const stockAdjustment: Scenario = {
    name: 'stock-adjustment',
    title: 'stock adjustment',
    ceiling: 'stock-adjustment',
    prepare: async () => void (stock = await f.products()),
    steps: () => {
      let n = 0;
      return [
        {
          name: 'adjust',
          path: '/inventory/ops/getdata',
          // Products in turn, each set to 11 and 10 alternately (from 10): every adjustment moves stock.
          body: () => {
            const i = n++;
            const product = stock.ids[i % stock.ids.length] as number;
            const target = 11 - (Math.floor(i / stock.ids.length) % 2);
            return `{"org_id":"${ORG_ID}","userid":"bench","action":"stock_adjustment","product_id":${product},"qty_locations":{"${stock.location}":${target}},"adjustment_type":"count","reference":"bench"}`;
          },
        },
      ];
    },
  };

  let einvoice: EInvoiceTemplate | undefined;
  let imported = 0;
  const importEInvoice: Scenario = {
    name: 'import-einvoice',
    title: 'import a 20-line UBL e-invoice (read, official rules, supplier and products matched, bill made)',
    ceiling: 'import-einvoice',
    prepare: async () => void (einvoice = await f.einvoiceTemplate()),
    steps: () => [
      {
        name: 'import',
        path: '/invoicing/inbound',
        // Imports queue for the rules' thread: the wait the operation states (60 s), not the default 10 s.
        timeoutSeconds: (invoicing.importInbound.timeoutMs ?? 10_000) / 1000,
        // Each request a new document: its number (BT-1) made unique, so neither the bytes nor the number repeat.
        body: () => {
          const t = einvoice as EInvoiceTemplate;
          const xml = `${t.head}BENCH-${process.pid}-${Date.now()}-${imported++}${t.tail}`;
          return `{"org_id":"${ORG_ID}","userid":"bench","action":"import","content_base64":"${Buffer.from(xml).toString('base64')}"}`;
        },
      },
    ],
  };

  return [
    listPartners,
    getInvoice,
    createPartner,
    createPartnerWithKey,
    createInvoice,
    validateInvoice,
    registerPayment,
    createPayment,
    quotationConvert,
    stockAdjustment,
    importEInvoice,
  ];
}

/**
 * How many validations a run of the validate scenario (and of its floor) makes, one draft each:
 * enough for the run at a little over the warm-up's pace. The run also stops after twice its duration.
 */
export function validatePoolSize({ connections, seconds, warmRate }: RunPlan): number {
  return Math.max(connections * 4, Math.ceil(Math.max(warmRate, 5) * 1.25 * seconds));
}

/** `extra` spread evenly through `items`. */
export function interleave<T>(items: readonly T[], extra: readonly T[]): T[] {
  if (extra.length === 0) return [...items];
  const out: T[] = [];
  const every = (items.length + extra.length) / extra.length;
  let e = 0;
  let i = 0;
  for (let pos = 0; pos < items.length + extra.length; pos++) {
    const extraDue = e < extra.length && pos >= Math.floor(e * every + every / 2);
    if ((extraDue || i >= items.length) && e < extra.length) out.push(extra[e++] as T);
    else out.push(items[i++] as T);
  }
  return out;
}
