import type { CatalogueOperation } from '../catalogue';
import type { AllocationRecord, PaymentRecord, RefundRecord } from '../invoicing/payments';
import type { ReplyOf, RequestInputOf } from '../operation';

export type Routed = Exclude<CatalogueOperation, { paths: readonly [] }>;
export type Named<N extends Routed['name']> = Extract<Routed, { name: N }>;

/** One request of the story and the body of its 200 answer. */
export interface ExampleStep {
  operation: Routed['name'];
  request: Record<string, unknown>;
  reply: Record<string, unknown>;
}

export type Reply<N extends Routed['name']> = ReplyOf<Named<N>>;

/** A step, its request and reply typed by the operation's own schemas. */
export function step<N extends Routed['name']>(operation: N, request: RequestInputOf<Named<N>>, reply: ReplyOf<Named<N>>): ExampleStep {
  return { operation, request, reply };
}

/** `day` moved by `days`, as YYYY-MM-DD. */
export function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * The example of every operation, as one story told on a new database by organization 1: it sets up
 * its profile, a customer, a warehouse, a product, quotes, converts, invoices, gets paid and runs a
 * recurring contract. Played in this order, each request answers 200 with its reply, ids and all
 * (tests/e2e/api-examples.e2e.test.ts plays it; only the clock's date-times differ). Dates count from
 * `today` (UTC), so the story works on the day the document is served. The first step of each
 * operation is the example the API reference shows; later steps of the same operation set the scene
 * for another (the partner that `partners.partner.delete` deletes).
 */

/**
 * What the story's chapters share: its dates, who writes and who reads, and the records it shows more
 * than once (written, then read back), written once.
 */
export function sceneOf(today: string) {
  const in7 = addDays(today, 7);
  const in14 = addDays(today, 14);
  const writer = { org_id: '1', userid: '1' } as const;
  const reader = { org_id: '1' } as const;
  const line = { product_id: 1, quantity: 4, price: '27.5', discount: 10, tax_rate: 23, tax_included: false };
  // Records the story shows more than once (written, then read back), written once.
  const organization: Reply<'partners.organization.get'>['organization'] = {
    org_id: 1,
    version: 1,
    legal_name: 'Northwind Trading Ltd',
    trading_name: null,
    address_line1: '12 Harbour Street',
    address_line2: null,
    city: 'Dublin',
    postal_code: 'D02 X285',
    country: 'IE',
    vat_id: 'IE9876543W',
    company_id: null,
    email: 'accounts@northwind.example',
    phone: null,
    iban: 'IE29AIBK93115212345678',
    bic: 'AIBKIE2D',
    default_currency: 'EUR',
    time_zone: null,
    rounding: 'line',
    cash_rounding: null,
    lock_date: null,
    peppol_id: '9935:IE9876543W',
    logo_sha256: null,
    logo_bytes: null,
    updated_at: `${today}T20:42:52`,
    logo_png: null,
  };
  const acmeCreated: Reply<'partners.partner.create'>['partner'] = {
    id: 1,
    orgid: 1,
    partnername: 'Acme Supplies',
    display_name: 'Acme Supplies',
    partner_type: 'customer',
    email: 'billing@acme.example',
    phone: '+353 21 555 0100',
    address: null,
    address_line1: '1 Main Street',
    address_line2: null,
    city: 'Cork',
    postal_code: 'T12 AB34',
    region: null,
    country: 'IE',
    tax_number: 'IE1234567T',
    credit_limit: 5000,
    balance: 0,
    committed: 0,
    currency: 'EUR',
    payment_terms: '30 days',
    contact_person: null,
    notes: null,
    peppol_id: '9935:IE1234567T',
    version: 1,
    created_at: `${today}T20:42:53`,
    updated_at: `${today}T20:42:53`,
    bank_accounts: [{ iban: 'IE64IRCE92050112345678', bic: 'IRCEIE2D', name: 'Acme Supplies Ltd' }],
    dunning_blocked: false,
  };
  const acme = { ...acmeCreated, display_name: 'Acme', contact_person: 'Mary Byrne', version: 2, updated_at: `${today}T20:42:54` };
  const hammer: Reply<'catalog.product.edit'>['product'] = {
    id: 1,
    name: 'Claw hammer',
    description: '16 oz, fibreglass handle',
    price: 27.5,
    cost: 12.5,
    category: 'Tools',
    category_id: '1',
    stock: 40,
    sku: 'HAM-16',
    barcode: '5012345678900',
    image: null,
    taxable: true,
    tax_rate: 23,
    tax_category: null,
    type: 'inventory',
    uom: 'pcs',
    min_stock_level: 5,
    max_stock_level: null,
    created_at: `${today}T20:43:00`,
    updated_at: `${today}T20:43:01`,
    version: 2,
  };
  const hammerMoves: Reply<'catalog.stock.moves'>['stock_moves'] = [
    {
      id: '2',
      product_id: 1,
      source: 'adjustment',
      adjustment_type: 'count',
      reference: 'Shelf count',
      notes: 'Ten moved to shelf B',
      created_by: '1',
      created_at: `${today}T20:43:02`,
      document: null,
      total_change: 0,
      lines: [
        {
          location_id: '2',
          location_name: 'Stock',
          warehouse_id: '2',
          warehouse_name: 'Main depot',
          previous_stock: 40,
          new_stock: 30,
          change: -10,
        },
        {
          location_id: '3',
          location_name: 'Shelf B',
          warehouse_id: '2',
          warehouse_name: 'Main depot',
          previous_stock: 0,
          new_stock: 10,
          change: 10,
        },
      ],
    },
    {
      id: '1',
      product_id: 1,
      source: 'initial',
      adjustment_type: 'initial',
      reference: 'Initial stock',
      notes: null,
      created_by: '1',
      created_at: `${today}T20:43:00`,
      document: null,
      total_change: 40,
      lines: [
        {
          location_id: '2',
          location_name: 'Stock',
          warehouse_id: '2',
          warehouse_name: 'Main depot',
          previous_stock: 0,
          new_stock: 40,
          change: 40,
        },
      ],
    },
  ];
  const quotationLine1: Reply<'sales.quotation.add_line'>['line_item'] = {
    id: 1,
    quotation_id: 1,
    product_id: '1',
    variant_id: null,
    location_id: null,
    product_name: 'Claw hammer',
    sku: 'HAM-16',
    uom: 'pcs',
    description: '16 oz, fibreglass handle',
    quantity: 4,
    price: 27.5,
    discount: 10,
    tax_rate: 23,
    tax_included: false,
    tax_category: 'S',
    tax_exemption_reason: null,
    tax_exemption_code: null,
    reverse_charge_rate: null,
    subtotal: 99,
    tax_amount: 22.77,
    total: 121.77,
  };
  const quotationLine2: Reply<'sales.quotation.add_line'>['line_item'] = {
    id: 2,
    quotation_id: 1,
    product_id: '1',
    variant_id: '1',
    location_id: null,
    product_name: 'Claw hammer, 20 oz',
    sku: 'HAM-20',
    uom: 'pcs',
    description: '16 oz, fibreglass handle',
    quantity: 2,
    price: 29,
    discount: 0,
    tax_rate: 23,
    tax_included: false,
    tax_category: 'S',
    tax_exemption_reason: null,
    tax_exemption_code: null,
    reverse_charge_rate: null,
    subtotal: 58,
    tax_amount: 13.34,
    total: 71.34,
  };
  const usdRate: Reply<'invoicing.exchange_rate.set'>['exchange_rate'] = {
    id: 1,
    currency: 'USD',
    date: today,
    rate: 0.9234,
    accounting_currency: 'EUR',
    created_at: `${today}T20:43:18`,
    updated_at: `${today}T20:43:18`,
  };
  const gbpRate: Reply<'invoicing.exchange_rate.set'>['exchange_rate'] = {
    id: 2,
    currency: 'GBP',
    date: today,
    rate: 1.1612,
    accounting_currency: 'EUR',
    created_at: `${today}T20:43:18`,
    updated_at: `${today}T20:43:18`,
  };
  const recurringParent: Reply<'invoicing.recurring.generate'>['invoice'] = {
    id: 3,
    invoicenumber: 'INV-00003',
    recurring: {
      enabled: true,
      is_parent: true,
      frequency: 'weekly',
      start_date: `${today}`,
      next_run_date: `${in14}`,
      occurrences_count: 0,
      generated_count: 1,
      status: 'active',
      cancellation_reason: null,
      parent_id: null,
    },
  };
  // Payment 2 (60.00 by bank transfer for INV-00002) as each of its steps leaves it: allocated twice, then refunded.
  // Each allocation names the entry that posted it: the payment's own (3) for the one made with it, its own after.
  const allocation = (id: number, amount: number, journalEntryId: number): AllocationRecord => ({
    id,
    source: 'payment',
    payment_id: 2,
    credit_note_id: null,
    invoice_id: 2,
    invoicenumber: 'INV-00002',
    amount,
    allocation_date: `${today}`,
    status: 'active',
    journal_entry_id: journalEntryId,
  });
  const allocation2 = allocation(2, 40, 3);
  const allocation3 = allocation(3, 13.32, 4);
  const refund1: RefundRecord = {
    id: 1,
    source: 'payment',
    payment_id: 2,
    credit_note_id: null,
    partner: 1,
    amount: 6.68,
    currency: 'EUR',
    exchange_rate: null,
    accounting_amount: 6.68,
    refund_date: `${today}`,
    method: 'bank_transfer',
    reference: 'Overpayment TRF-2041',
    journal: 'Bank',
    journal_entry_id: 5,
  };
  const payment2 = (state: Pick<PaymentRecord, 'allocated' | 'refunded' | 'unallocated' | 'allocations' | 'refunds'>): PaymentRecord => ({
    id: 2,
    partner: 1,
    direction: 'in',
    amount: 60,
    currency: 'EUR',
    payment_date: `${today}`,
    method: 'bank_transfer',
    reference: 'TRF-2041',
    journal: 'Bank',
    status: 'posted',
    exchange_rate: null,
    accounting_amount: 60,
    allocated: state.allocated,
    refunded: state.refunded,
    unallocated: state.unallocated,
    journal_entry_id: 3,
    void_journal_entry_id: null,
    void_reason: null,
    voided_at: null,
    allocations: state.allocations,
    refunds: state.refunds,
    created_at: `${today}T10:00:00`,
  });
  return {
    today,
    in7,
    in14,
    writer,
    reader,
    line,
    organization,
    acmeCreated,
    acme,
    hammer,
    hammerMoves,
    quotationLine1,
    quotationLine2,
    usdRate,
    gbpRate,
    recurringParent,
    allocation,
    allocation2,
    allocation3,
    refund1,
    payment2,
  };
}

export type Scene = ReturnType<typeof sceneOf>;
