import fc from 'fast-check';
import { eventually, startTestSystem, type TestSystem } from '../support/system';

/**
 * Round trip (docs/inbound.md): invoices organization 1 issues, rendered as UBL, CII or Factur-X by
 * `getinvoice`, imported by organization 2 (where organization 1 is a vendor by its VAT id) make a
 * vendor bill with the same lines and totals. Lines are generated (quantities, prices, discounts,
 * standard and zero rates), both organizations rounding by document. Under the `line` policy the
 * issuer's VAT may differ by a cent from what the document's rounded line amounts give (the issuer
 * taxes each line's unrounded net), and the import then holds it for review naming the difference
 * (seed 547207675, document 9); that policy is not round-tripped here. PROPERTY_RUNS documents (default 4, the import validates each by the
 * official rules), PROPERTY_SEED to replay; the seed is printed.
 */
const seed = Number(process.env.PROPERTY_SEED ?? Date.now() % 2_147_483_647);
const RUNS = Number(process.env.PROPERTY_RUNS ?? 4);
const PATH = '/invoicing/inbound';

const lineArb = fc.record({
  quantity: fc.integer({ min: 1, max: 4000 }).map((n) => n / 4),
  price: fc.integer({ min: 1, max: 500_000 }).map((n) => n / 100),
  discount: fc.constantFrom(0, 0, 5, 10, 12.5),
  rate: fc.constantFrom(20, 5.5, 0),
});
const documentArb = fc.record({
  lines: fc.array(lineArb, { minLength: 1, maxLength: 6 }),
  format: fc.constantFrom('ubl' as const, 'cii' as const, 'facturx' as const),
});

describe('round trip: what organization 1 issues, organization 2 imports as the same bill', () => {
  let sys: TestSystem;
  let customer = 0;
  let supplierInOrg2 = 0;
  const products: { org1: string; org2: number } = { org1: '', org2: 0 };

  beforeAll(async () => {
    sys = await startTestSystem({ env: { EINVOICE_RULES_WARM: 'on', RPC_TIMEOUT_MS: '60000' } });
    const org1 = sys.clientOf(1);
    const org2 = sys.clientOf(2);
    await org1.partners.organization.set({
      org_id: 1,
      userid: '7',
      legal_name: 'Acme Ltd',
      address_line1: '1 Main Street',
      city: 'Dublin',
      postal_code: 'D02 X285',
      country: 'IE',
      vat_id: 'IE6388047V',
      email: 'billing@acme.test',
      default_currency: 'EUR',
      rounding: 'document',
    });
    await org2.partners.organization.set({
      org_id: 2,
      userid: '7',
      legal_name: 'Buyer GmbH',
      country: 'DE',
      default_currency: 'EUR',
      rounding: 'document',
    });
    customer = (
      await org1.partners.partner.create({
        org_id: 1,
        userid: '7',
        partnername: 'Buyer GmbH',
        partner_type: 'customer',
        country: 'DE',
        city: 'Berlin',
        tax_number: 'DE136695976',
        email: 'ap@buyer.test',
      })
    ).partner.id;
    products.org1 = String((await org1.catalog.product.create({ org_id: 1, userid: '7', name: 'Service', type: 'service' })).product.id);
    supplierInOrg2 = (
      await org2.partners.partner.create({
        org_id: 2,
        userid: '7',
        partnername: 'Acme Ltd',
        partner_type: 'vendor',
        tax_number: 'IE6388047V',
      })
    ).partner.id;
    products.org2 = (await org2.catalog.product.create({ org_id: 2, userid: '7', name: 'Bought service', type: 'service' })).product.id;
    // Both organizations round by document (the profile reaches invoicing by its event): a draft made
    // in each says so once it has.
    for (const [org, partner, product, invoicetype] of [
      [1, customer, products.org1, 'invoiceout'],
      [2, supplierInOrg2, String(products.org2), 'invoicein'],
    ] as const) {
      await eventually(
        async () => {
          const draft = await sys.clientOf(org).invoicing.invoice.create({
            org_id: org,
            userid: '7',
            invoicetype,
            partner: String(partner),
            line_items: [{ product_id: product, quantity: 1, price: 1, tax_rate: 0, tax_included: false }],
          });
          if ((draft.invoice as { rounding?: string }).rounding !== 'document') throw new Error('not yet by document');
        },
        { timeoutMs: 15_000, intervalMs: 200 },
      );
    }
  }, 120_000);
  afterAll(async () => {
    await sys?.stop();
  });

  const lineItems = (lines: ReadonlyArray<{ quantity: number; price: number; discount: number; rate: number }>) =>
    lines.map((l) => ({
      product_id: products.org1,
      quantity: l.quantity,
      price: l.price,
      discount: l.discount,
      tax_rate: l.rate,
      tax_included: false,
    }));
  /** Renders what organization 1 sent, imports it in organization 2 (accepting its products), compares the bill; the bill's id. */
  const roundTrip = async (sentId: number, format: 'ubl' | 'cii' | 'facturx', lineCount: number, type: 'invoicein' | 'creditin') => {
    const file = await sys.clientOf(1).invoicing.invoice.render({ org_id: 1, id: sentId, format });
    const imported = await sys.post(PATH, { org_id: '2', userid: '7', action: 'import', content_base64: file.content_base64 }, { org: 2 });
    expect(imported.statusCode).toBe(200);
    let inbound = imported.body.inbound;
    expect(inbound.validation.fatal).toEqual([]);
    expect(inbound.seller.partner_id).toBe(supplierInOrg2);
    if (inbound.status === 'needs_review') {
      // Only products are left to choose (the issued lines carry no seller item id to map by).
      for (const r of inbound.review_reasons as string[]) expect(r).toMatch(/^line \S+: no product mapped/);
      const accepted = await sys.post(
        PATH,
        {
          org_id: '2',
          userid: '7',
          action: 'accept',
          id: inbound.id,
          line_products: Array.from({ length: lineCount }, (_, n) => ({ line: String(n + 1), product_id: products.org2 })),
        },
        { org: 2 },
      );
      expect([accepted.statusCode, accepted.body.message]).toEqual([200, 'Bill created']);
      inbound = accepted.body.inbound;
    }
    expect(inbound.status).toBe('bill_created');
    const bill = (await sys.clientOf(2).invoicing.invoice.balances({ org_id: '2', id: inbound.invoice_id, include_items: true }))
      .invoices[0]!;
    const sent = (await sys.clientOf(1).invoicing.invoice.balances({ org_id: '1', id: sentId, include_items: true })).invoices[0]!;
    expect(bill).toMatchObject({ invoicetype: type });
    expect(inbound.currency).toBe('EUR');
    const listed = async (org: 1 | 2, id: number) =>
      (await sys.clientOf(org).invoicing.invoice.list({ org_id: String(org), page_size: 100 })).invoices.find((i) => i.id === id)!;
    const [billed, issued] = [await listed(2, inbound.invoice_id as number), await listed(1, sentId)];
    expect(billed.subtotal).toEqual(expect.any(Number));
    expect([billed.subtotal, billed.tax_amount, billed.invoicetotal]).toEqual([issued.subtotal, issued.tax_amount, issued.invoicetotal]);
    // Each line's quantity, rate and amounts. Its price and discount may be stated apart otherwise: the
    // document carries the discount as an amount in cents (BG-27), which the bill reads back as the
    // exact percent of quantity × price it is (12.5001 for 12.5), its line amount unchanged.
    const shape = (ls: NonNullable<typeof bill.line_items>) =>
      ls.map((l) => [Number(l.quantity), Number(l.tax_rate), Number(l.subtotal), Number(l.tax_amount)]);
    expect(shape(bill.line_items!)).toEqual(shape(sent.line_items!));
    return inbound.invoice_id as number;
  };

  it(`imports ${RUNS} generated invoices as bills with the same lines and totals (seed ${seed})`, async () => {
    console.log(`inbound round trip: seed ${seed}, ${RUNS} documents (replay with PROPERTY_SEED=${seed} PROPERTY_RUNS=${RUNS})`);
    const documents = fc.sample(documentArb, { seed, numRuns: RUNS });
    for (const [i, doc] of documents.entries()) {
      try {
        const org1 = sys.clientOf(1);
        const issued = (
          await org1.invoicing.invoice.create({
            org_id: 1,
            userid: '7',
            invoicetype: 'invoiceout',
            partner: String(customer),
            invoicedatetime: '2026-11-02T09:30:00',
            invoicedue: '2026-12-02',
            line_items: lineItems(doc.lines),
          })
        ).invoice;
        await org1.invoicing.invoice.validate({ org_id: 1, userid: '7', id: issued.id });
        await roundTrip(issued.id, doc.format, doc.lines.length, 'invoicein');
      } catch (e) {
        if (e instanceof Error) e.message = `${e.message}\nseed ${seed}, document ${i}: ${JSON.stringify(doc)}`;
        throw e;
      }
    }
  }, 600_000);

  it('validate: true posts the bill an import makes (its journal entry, the supplier balance), and posts nothing for a review', async () => {
    const org1 = sys.clientOf(1);
    const org2 = sys.clientOf(2);
    // A product with a SKU: the issued lines carry it as the seller's item id (BT-155), which accept maps.
    const sold = (await org1.catalog.product.create({ org_id: 1, userid: '7', name: 'Audit', type: 'service', sku: 'AUD-1' })).product.id;
    const issue = async (price: number) => {
      const made = (
        await org1.invoicing.invoice.create({
          org_id: 1,
          userid: '7',
          invoicetype: 'invoiceout',
          partner: String(customer),
          invoicedatetime: '2026-11-03T09:30:00',
          invoicedue: '2026-12-03',
          // Two lines of one product: both carry its SKU, which accept maps once.
          line_items: [1, 2].map(() => ({ product_id: String(sold), quantity: 1, price, tax_rate: 20, tax_included: false })),
        })
      ).invoice;
      await org1.invoicing.invoice.validate({ org_id: 1, userid: '7', id: made.id });
      return (await org1.invoicing.invoice.render({ org_id: 1, id: made.id, format: 'ubl' })).content_base64;
    };
    const importValidated = (content: string) =>
      sys.post(PATH, { org_id: '2', userid: '7', action: 'import', content_base64: content, validate: true }, { org: 2 });
    const balance = async () =>
      (await sys.post('/crm/partners', { org_id: '2', partner_id: supplierInOrg2 }, { org: 2 })).body.partner.balance as number;

    // Held for review (the SKU is not mapped yet): nothing is made, nothing posted.
    const before = await balance();
    const held = await importValidated(await issue(40.5));
    expect([held.statusCode, held.body.inbound.status, held.body.inbound.invoice_id, held.body.bill]).toEqual([
      200,
      'needs_review',
      null,
      undefined,
    ]);
    await sys.eventsSettled();
    expect(await balance()).toBe(before);
    const accepted = await sys.post(
      PATH,
      {
        org_id: '2',
        userid: '7',
        action: 'accept',
        id: held.body.inbound.id,
        line_products: [
          { line: '1', product_id: products.org2 },
          { line: '2', product_id: products.org2 },
        ],
      },
      { org: 2 },
    );
    expect(accepted.statusCode).toBe(200);

    // The SKU now maps: the next document makes its bill and validation posts it in the same request.
    const made = await importValidated(await issue(61.25));
    expect(made.statusCode).toBe(200);
    expect(made.body).toMatchObject({
      message: 'Bill created and validated',
      inbound: { status: 'bill_created', invoice_id: expect.any(Number) },
      bill: { invoicestatus: 'open', journal_entry_id: expect.any(Number) },
    });
    expect(made.body.bill.id).toBe(made.body.inbound.invoice_id);
    const bill = (await org2.invoicing.invoice.balances({ org_id: '2', id: made.body.bill.id })).invoices[0]!;
    // 2 lines × 61.25 = 122.50, VAT 20 % 24.50: 147.00 as the document states it.
    expect([bill.invoicetype, bill.invoicestatus, bill.invoicetotal, made.body.inbound.totals.payable]).toEqual([
      'invoicein',
      'open',
      147,
      '147.00',
    ]);
    expect(bill.journals).toEqual([expect.objectContaining({ amount: 147 })]);
    // The bill's event reaches the partners ledger: the supplier's balance moves by − total.
    await sys.eventsSettled();
    expect(await balance()).toBeCloseTo(before - 147, 2);
  }, 300_000);

  it('imports credit notes, as UBL CreditNote and as CII 381, as creditin linked to the bill their BT-25 names, to the cent', async () => {
    const org1 = sys.clientOf(1);
    const org2 = sys.clientOf(2);
    const sold = (await org1.catalog.product.create({ org_id: 1, userid: '7', name: 'Repair', type: 'service', sku: 'RPR-1' })).product.id;
    const line = (quantity: number) => [{ product_id: String(sold), quantity, price: 20.35, tax_rate: 20, tax_included: false }];
    const issue = async (fields: Record<string, unknown>) => {
      const made = (
        await org1.invoicing.invoice.create({
          org_id: 1,
          userid: '7',
          partner: String(customer),
          invoicedatetime: '2026-11-04T09:30:00',
          ...fields,
        } as never)
      ).invoice;
      await org1.invoicing.invoice.validate({ org_id: 1, userid: '7', id: made.id });
      return made;
    };
    const importIn2 = (content: string) =>
      sys.post(PATH, { org_id: '2', userid: '7', action: 'import', content_base64: content, validate: true }, { org: 2 });
    const render = async (id: number, format: 'ubl' | 'cii') =>
      (await org1.invoicing.invoice.render({ org_id: 1, id, format })).content_base64;

    // The invoice, 3 × 20.35 = 61.05 + 12.21 VAT = 73.26, becomes an issued bill in organization 2.
    const sent = await issue({ invoicetype: 'invoiceout', line_items: line(3) });
    const held = await importIn2(await render(sent.id, 'ubl'));
    expect(held.body.inbound.status).toBe('needs_review');
    const accepted = await sys.post(
      PATH,
      { org_id: '2', userid: '7', action: 'accept', id: held.body.inbound.id, line_products: [{ line: '1', product_id: products.org2 }] },
      { org: 2 },
    );
    const billId = accepted.body.inbound.invoice_id as number;
    await org2.invoicing.invoice.validate({ org_id: 2, userid: '7', id: billId });

    for (const format of ['ubl', 'cii'] as const) {
      // One unit credited: 20.35 + 4.07 VAT = 24.42.
      const note = await issue({ invoicetype: 'creditout', sourcetype: 'invoice', sourceid: String(sent.id), line_items: line(1) });
      const imported = await importIn2(await render(note.id, format));
      expect([format, imported.statusCode, imported.body.inbound.status]).toEqual([format, 200, 'bill_created']);
      expect(imported.body.inbound.totals).toMatchObject({ line_extension: '20.35', tax: '4.07', payable: '24.42' });
      expect(imported.body.bill).toMatchObject({
        invoicestatus: expect.stringMatching(/^(open|paid)$/),
        journal_entry_id: expect.any(Number),
      });
      const credit = (await org2.invoicing.invoice.balances({ org_id: '2', id: imported.body.inbound.invoice_id })).invoices[0]!;
      expect([format, credit.invoicetype, credit.invoicetotal]).toEqual([format, 'creditin', 24.42]);
    }
    // Linked to the bill its BT-25 names: each validated credit note settled it first (73.26 − 2 × 24.42).
    const bill = (await org2.invoicing.invoice.balances({ org_id: '2', id: billId })).invoices[0]!;
    expect([bill.invoicetotal, bill.due_amount]).toEqual([73.26, 24.42]);
  }, 300_000);
});
