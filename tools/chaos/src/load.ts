import { operationsByName } from '@bo/contracts';
import { field, type CarefulClient, type WriteRecord } from './client';

/**
 * The write mix: partners, products and stock, invoices, credit notes and vendor bills with lines,
 * validations and payments, payments allocated across several invoices of a customer, quotations
 * converted (and their invoices validated) or cancelled, recurring contracts the scheduler makes
 * children for, and reminder runs over invoices overdue since before the run (each letter's fee an
 * invoice of its own, posted in the run's transaction). Each scenario is a short chain a worker
 * runs step after step; a step whose outcome is not a 2xx ends its chain.
 *
 * Every record a write creates carries the write's Idempotency-Key in a text field (a marker the
 * checks look for): partner `notes`, product `description`, stock move `reference`, invoice
 * `invoicereference`, payment `reference`, quotation `quotation_reference`, line `description`.
 */

/** The operations the load sends; each goes to its canonical path in the operation catalogue. */
export const OPS = {
  partnerCreate: 'partners.partner.create',
  partnerEdit: 'partners.partner.edit',
  warehouseCreate: 'catalog.warehouse.create',
  productCreate: 'catalog.product.create',
  stockAdjust: 'catalog.stock.adjust',
  invoiceCreate: 'invoicing.invoice.create',
  invoiceAddLine: 'invoicing.invoice.add_line',
  invoiceValidate: 'invoicing.invoice.validate',
  payment: 'invoicing.invoice.register_payment',
  paymentCreate: 'invoicing.payment.create',
  quotationCreate: 'sales.quotation.create',
  quotationAddLine: 'sales.quotation.add_line',
  quotationConvert: 'sales.quotation.convert',
  quotationCancel: 'sales.quotation.cancel',
  dunningLevels: 'invoicing.dunning.levels',
  dunningRun: 'invoicing.dunning.run',
} as const;
type OpName = keyof typeof OPS;

/** What a 2xx reply carries at a path (an id, a location): a reply without it breaks its contract, and the run. */
function numberAt(reply: Record<string, unknown>, ...path: string[]): number {
  const value = field(reply, ...path);
  if (typeof value !== 'number') throw new Error(`2xx reply without a number at ${path.join('.')}: ${JSON.stringify(reply).slice(0, 300)}`);
  return value;
}

function stringAt(reply: Record<string, unknown>, ...path: string[]): string {
  const value = field(reply, ...path);
  if (typeof value !== 'string') throw new Error(`2xx reply without a string at ${path.join('.')}: ${JSON.stringify(reply).slice(0, 300)}`);
  return value;
}

/**
 * The reminder levels every organization has, fees posted: an invoice the load made overdue (dated
 * OVERDUE.daysBack ago, due OVERDUE.dueDaysBack ago) gets level 1, then 2, then 3, one per run.
 */
export const DUNNING_LEVELS = [
  { level: 1, days_after_due: 0, fee: 5, interest: false, text: 'Chaos reminder' },
  { level: 2, days_after_due: 10, fee: 7.5, interest: false, text: 'Chaos second reminder' },
  { level: 3, days_after_due: 20, fee: 0, interest: false, text: 'Chaos final notice' },
] as const;
const OVERDUE = { daysBack: 45, dueDaysBack: 40 } as const;

/** The recurring contracts the load makes: daily, started two days ago, three children each. */
// Started three days ago: the parent bills that day, its three children the days after, today's the last.
export const RECURRING = { frequency: 'daily', daysBack: 3, occurrences: 3 } as const;

interface OrgWorld {
  org: number;
  customers: number[];
  vendors: number[];
  products: number[];
  /** Default location first. */
  locations: string[];
}

export interface LoadLimits {
  /** True once the load should start no new write. */
  shouldStop(): boolean;
  concurrency: number;
  maxRecurring: number;
}

/** A small seeded generator (mulberry32), so a run's mix can be told again from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const daysFromNow = (n: number) => isoDay(new Date(Date.now() + n * 86_400_000));

class Stop extends Error {}

export class Load {
  private readonly worlds: OrgWorld[];
  private recurringMade = 0;
  readonly scenarioCounts = new Map<string, number>();

  constructor(
    private readonly client: CarefulClient,
    orgs: readonly number[],
    private readonly random: () => number,
  ) {
    this.worlds = orgs.map((org) => ({ org, customers: [], vendors: [], products: [], locations: [] }));
  }

  private pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.random() * items.length)];
    if (item === undefined) throw new Stop('nothing to pick from');
    return item;
  }

  private money(min: number, max: number): number {
    return Math.round((min + this.random() * (max - min)) * 100) / 100;
  }

  /** One write; a chain goes on only with its 2xx reply. */
  private async step(
    name: OpName,
    org: number,
    body: (key: string) => Record<string, unknown>,
    tags: Record<string, string | number> = {},
    limits?: LoadLimits,
  ): Promise<Record<string, unknown>> {
    if (limits?.shouldStop()) throw new Stop('load over');
    const op = OPS[name];
    const path = canonicalPath(op);
    const rec: WriteRecord = await this.client.write(
      op,
      org,
      path,
      (key) => ({ org_id: String(org), userid: 'chaos', ...body(key) }),
      tags,
    );
    if (rec.outcome !== 'ok' || !rec.reply) throw new Stop(`${name} ${rec.outcome}`);
    return rec.reply;
  }

  private line(w: OrgWorld, description: string): Record<string, unknown> {
    return {
      product_id: this.pick(w.products),
      product_name: 'Chaos item',
      description,
      quantity: 1 + Math.floor(this.random() * 4),
      price: this.money(1, 250),
      discount: 0,
      tax_rate: this.pick([0, 10, 15]),
      tax_included: false,
    };
  }

  /** Before any fault: per organization a second warehouse, customers, vendors and products. */
  async seed(): Promise<void> {
    for (const w of this.worlds) {
      const listed = await this.client.read(w.org, canonicalPath(OPS.warehouseCreate), { org_id: String(w.org), action: 'list_locations' });
      const rows = (listed.body?.['locations'] ?? []) as Array<{ location_id: string; is_default: boolean }>;
      const def = rows.find((r) => r.is_default) ?? rows[0];
      if (!def) throw new Error(`organization ${w.org} has no default location (list_locations answered ${listed.status})`);
      w.locations.push(def.location_id);
      const wh = await this.step('warehouseCreate', w.org, (key) => ({ action: 'create_warehouse', name: `Chaos depot ${key}` }));
      w.locations.push(stringAt(wh, 'location', 'location_id'));
      for (let i = 0; i < 3; i++) await this.createPartner(w, 'customer');
      for (let i = 0; i < 2; i++) await this.createPartner(w, 'vendor');
      await this.createPartner(w, 'both');
      for (let i = 0; i < 3; i++) await this.createProduct(w);
      await this.createRecurring(w);
      await this.step('dunningLevels', w.org, () => ({ action: 'levels', levels: DUNNING_LEVELS, post_fees: true }));
    }
  }

  private async createPartner(w: OrgWorld, type: 'customer' | 'vendor' | 'both', limits?: LoadLimits): Promise<number> {
    const reply = await this.step(
      'partnerCreate',
      w.org,
      (key) => ({ action: 'create', partnername: `Chaos ${type} ${key}`, partner_type: type, notes: key, currency: 'EUR' }),
      {},
      limits,
    );
    const id = numberAt(reply, 'partner', 'id');
    if (type !== 'vendor') w.customers.push(id);
    if (type !== 'customer') w.vendors.push(id);
    return id;
  }

  private async createProduct(w: OrgWorld, limits?: LoadLimits): Promise<number> {
    const reply = await this.step(
      'productCreate',
      w.org,
      (key) => ({
        name: `Chaos product ${key}`,
        description: key,
        price: this.money(1, 100),
        cost: this.money(1, 50),
        type: 'inventory',
        stock: 10 + Math.floor(this.random() * 90),
      }),
      {},
      limits,
    );
    const id = numberAt(reply, 'product', 'id');
    w.products.push(id);
    return id;
  }

  /** Runs `concurrency` workers until the limits say stop; each picks scenarios by weight. */
  async run(limits: LoadLimits): Promise<void> {
    const scenarios: Array<[string, number, (w: OrgWorld, l: LoadLimits) => Promise<void>]> = [
      ['partner', 1, (w, l) => this.partnerScenario(w, l)],
      ['product+stock', 1.2, (w, l) => this.productScenario(w, l)],
      ['sales invoice', 3, (w, l) => this.documentScenario(w, l, 'invoiceout')],
      ['credit note', 1, (w, l) => this.documentScenario(w, l, 'creditout')],
      ['vendor bill', 1.5, (w, l) => this.documentScenario(w, l, 'invoicein')],
      ['payment allocated', 1.5, (w, l) => this.allocatedPaymentScenario(w, l)],
      ['quotation converted', 2.5, (w, l) => this.convertScenario(w, l)],
      ['quotation cancelled', 0.8, (w, l) => this.cancelScenario(w, l)],
      ['recurring', 0.4, (w, l) => this.recurringScenario(w, l)],
      ['reminders', 0.4, (w, l) => this.remindersScenario(w, l)],
    ];
    const total = scenarios.reduce((s, [, weight]) => s + weight, 0);
    const worker = async () => {
      while (!limits.shouldStop()) {
        let r = this.random() * total;
        const chosen = scenarios.find(([, weight]) => (r -= weight) < 0) ?? scenarios[0]!;
        this.scenarioCounts.set(chosen[0], (this.scenarioCounts.get(chosen[0]) ?? 0) + 1);
        try {
          await chosen[2](this.pick(this.worlds), limits);
        } catch (err) {
          if (!(err instanceof Stop)) throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: limits.concurrency }, worker));
  }

  private async partnerScenario(w: OrgWorld, l: LoadLimits): Promise<void> {
    const id = await this.createPartner(w, this.pick(['customer', 'vendor', 'both'] as const), l);
    const edits = Math.floor(this.random() * 3);
    for (let i = 0; i < edits; i++) {
      await this.step('partnerEdit', w.org, (key) => ({ action: 'edit', partner_id: id, phone: `ph-${key}` }), { partnerId: id }, l);
    }
  }

  private async productScenario(w: OrgWorld, l: LoadLimits): Promise<void> {
    const id = await this.createProduct(w, l);
    const adjustments = 1 + Math.floor(this.random() * 3);
    for (let i = 0; i < adjustments; i++) {
      const qty = Object.fromEntries(w.locations.filter(() => this.random() < 0.8).map((loc) => [loc, Math.floor(this.random() * 200)]));
      if (Object.keys(qty).length === 0) qty[w.locations[0]!] = Math.floor(this.random() * 200);
      await this.step(
        'stockAdjust',
        w.org,
        (key) => ({ action: 'stock_adjustment', product_id: id, qty_locations: qty, adjustment_type: 'count', reference: key }),
        { productId: id },
        l,
      );
    }
  }

  /** An invoice, credit note or bill: created with a line, a line added, validated, then paid in part or in full. */
  private async documentScenario(w: OrgWorld, l: LoadLimits, type: 'invoiceout' | 'creditout' | 'invoicein'): Promise<void> {
    const partner = this.pick(type === 'invoicein' ? w.vendors : w.customers);
    const created = await this.step(
      'invoiceCreate',
      w.org,
      (key) => ({
        invoicetype: type,
        partner: String(partner),
        invoicereference: key,
        line_items: [this.line(w, 'created with the invoice')],
      }),
      { partnerId: partner },
      l,
    );
    const invoiceId = numberAt(created, 'invoice', 'id');
    if (this.random() < 0.6) {
      await this.step('invoiceAddLine', w.org, (key) => ({ invoice_id: invoiceId, ...this.line(w, key) }), { invoiceId }, l);
    }
    await this.validateAndPay(w, l, invoiceId);
  }

  private async validateAndPay(w: OrgWorld, l: LoadLimits, invoiceId: number): Promise<void> {
    const validated = await this.step('invoiceValidate', w.org, () => ({ validate_invoice: true, id: invoiceId }), { invoiceId }, l);
    let due = Number(field(validated, 'invoice', 'due_amount'));
    const payments = Math.floor(this.random() * 3);
    for (let i = 0; i < payments && due > 0; i++) {
      const amount = this.random() < 0.35 ? due : Math.max(0.01, Math.round(due * (0.2 + this.random() * 0.4) * 100) / 100);
      const paid = await this.step(
        'payment',
        w.org,
        () => ({ register_payment: true, id: invoiceId, amount, journal: 'Bank' }),
        { invoiceId },
        l,
      );
      due = Number(field(paid, 'invoice', 'due_amount'));
    }
  }

  /**
   * Two or three invoices of one customer, validated, then one payment allocated across them (each
   * paid in full or in part), exactly its amount, so it leaves no credit. One in ten asks more than
   * an invoice's due amount and must be refused, changing nothing.
   */
  private async allocatedPaymentScenario(w: OrgWorld, l: LoadLimits): Promise<void> {
    const partner = this.pick(w.customers);
    const open: Array<{ id: number; dueCents: number }> = [];
    const count = 2 + Math.floor(this.random() * 2);
    for (let i = 0; i < count; i++) {
      const created = await this.step(
        'invoiceCreate',
        w.org,
        (key) => ({ invoicetype: 'invoiceout', partner: String(partner), invoicereference: key, line_items: [this.line(w, 'to be paid')] }),
        { partnerId: partner },
        l,
      );
      const invoiceId = numberAt(created, 'invoice', 'id');
      const validated = await this.step('invoiceValidate', w.org, () => ({ validate_invoice: true, id: invoiceId }), { invoiceId }, l);
      const dueCents = Math.round(Number(field(validated, 'invoice', 'due_amount')) * 100);
      if (dueCents > 0) open.push({ id: invoiceId, dueCents });
    }
    if (open.length === 0) return;
    const over = this.random() < 0.1;
    const allocations = open.map((o, i) => {
      const cents =
        over && i === 0
          ? o.dueCents + 100
          : this.random() < 0.4
            ? o.dueCents
            : Math.max(1, Math.round(o.dueCents * (0.2 + this.random() * 0.6)));
      return { invoice_id: o.id, cents };
    });
    const amountCents = allocations.reduce((s, a) => s + a.cents, 0);
    await this.step(
      'paymentCreate',
      w.org,
      (key) => ({
        action: 'create',
        partner,
        amount: amountCents / 100,
        currency: 'EUR',
        direction: 'in',
        method: 'bank_transfer',
        reference: key,
        allocations: allocations.map((a) => ({ invoice_id: a.invoice_id, amount: a.cents / 100 })),
      }),
      { partnerId: partner, allocations: allocations.length, overAllocated: over ? 1 : 0 },
      l,
    );
  }

  private async quotation(w: OrgWorld, l: LoadLimits): Promise<number> {
    const partner = this.pick(w.customers);
    const created = await this.step(
      'quotationCreate',
      w.org,
      (key) => ({
        action: 'create_quotation',
        partner: String(partner),
        quotation_type: this.pick(['quotation', 'proforma', 'estimate']),
        quotation_status: 'draft',
        quotation_date: `${isoDay(new Date())}T09:00:00`,
        valid_until: daysFromNow(30),
        quotation_reference: key,
        line_items: [this.line(w, 'quoted with the quotation')],
      }),
      { partnerId: partner },
      l,
    );
    const id = numberAt(created, 'quotation', 'id');
    await this.step(
      'quotationAddLine',
      w.org,
      (key) => ({ action: 'add_line', quotation_id: id, ...this.line(w, key) }),
      { quotationId: id },
      l,
    );
    return id;
  }

  private async convertScenario(w: OrgWorld, l: LoadLimits): Promise<void> {
    const id = await this.quotation(w, l);
    const convert = () =>
      this.step(
        'quotationConvert',
        w.org,
        () => ({ action: 'convert_to_invoice', quotation_id: id, invoicetype: 'invoiceout' }),
        { quotationId: id },
        l,
      );
    let converted: Record<string, unknown>;
    try {
      converted = await convert();
    } catch (err) {
      if (!(err instanceof Stop) || l.shouldStop()) throw err;
      // The conversion did not answer 2xx: a client gives up on it (cancels the quotation), or
      // adds a line and converts again under a new key. Neither may leave an invoice behind that
      // the quotation does not point to, nor one without the quotation's lines.
      if (this.random() < 0.5) {
        await this.step('quotationCancel', w.org, () => ({ action: 'cancel_quotation', quotation_id: id }), { quotationId: id }, l);
        return;
      }
      await this.step(
        'quotationAddLine',
        w.org,
        (key) => ({ action: 'add_line', quotation_id: id, ...this.line(w, key) }),
        { quotationId: id },
        l,
      ).catch(() => undefined);
      converted = await convert();
    }
    // Some converted invoices stay drafts, so partners carry committed amounts at the end.
    if (this.random() < 0.65) await this.validateAndPay(w, l, numberAt(converted, 'invoice', 'id'));
  }

  private async cancelScenario(w: OrgWorld, l: LoadLimits): Promise<void> {
    const id = await this.quotation(w, l);
    await this.step('quotationCancel', w.org, () => ({ action: 'cancel_quotation', quotation_id: id }), { quotationId: id }, l);
  }

  /**
   * An invoice overdue for weeks, validated, then reminder runs of its organization (each sends every
   * overdue invoice's next level, and posts its fee): a run repeated, retried or killed half-way
   * must leave each level's letter once per invoice and each fee invoiced and posted once.
   */
  private async remindersScenario(w: OrgWorld, l: LoadLimits): Promise<void> {
    const partner = this.pick(w.customers);
    const created = await this.step(
      'invoiceCreate',
      w.org,
      (key) => ({
        invoicetype: 'invoiceout',
        partner: String(partner),
        invoicereference: key,
        invoicedatetime: `${daysFromNow(-OVERDUE.daysBack)}T09:00:00`,
        invoicedue: daysFromNow(-OVERDUE.dueDaysBack),
        line_items: [this.line(w, 'to be reminded')],
      }),
      { partnerId: partner },
      l,
    );
    const invoiceId = numberAt(created, 'invoice', 'id');
    await this.step('invoiceValidate', w.org, () => ({ validate_invoice: true, id: invoiceId }), { invoiceId }, l);
    const runs = 1 + Math.floor(this.random() * 3);
    for (let i = 0; i < runs; i++) await this.step('dunningRun', w.org, () => ({ action: 'run' }), {}, l);
  }

  private async recurringScenario(w: OrgWorld, l: LoadLimits): Promise<void> {
    if (this.recurringMade >= l.maxRecurring) return this.documentScenario(w, l, 'invoiceout');
    await this.createRecurring(w, l);
  }

  /** A contract whose three children are all due already: the scheduler makes them at once. */
  private async createRecurring(w: OrgWorld, l?: LoadLimits): Promise<void> {
    this.recurringMade += 1;
    const partner = this.pick(w.customers);
    await this.step(
      'invoiceCreate',
      w.org,
      (key) => ({
        invoicetype: 'invoiceout',
        partner: String(partner),
        invoicereference: key,
        line_items: [this.line(w, 'recurring line')],
        recurring: {
          enabled: true,
          frequency: RECURRING.frequency,
          start_date: daysFromNow(-RECURRING.daysBack),
          occurrences_count: RECURRING.occurrences,
        },
      }),
      { partnerId: partner, recurring: 1 },
      l,
    );
  }
}

function canonicalPath(operation: string): string {
  const path = operationsByName.get(operation)?.paths[0];
  if (!path) throw new Error(`no path for ${operation} in the operation catalogue`);
  return path;
}
