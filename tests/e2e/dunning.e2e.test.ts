import { ok, invoicingSuite } from '../support/invoicing';
import { pdfText } from '../support/pdf';
import { eventually } from '../support/system';

/**
 * Reminders through the gateway (docs/dunning.md): levels set, runs at three dates send levels 1, 2
 * and 3 once each, with the worked examples' interest (4.5 % + 8 points, actual/365) and fees; a
 * partner with `dunning_blocked` gets none; a run repeated, or two at once, sends nothing more; each
 * letter is one `invoicing.dunning.sent` event in the outbox and reads back as a PDF addressed to its
 * customer; a disputed invoice gets no letter until the mark is cleared; with `post_fees` a letter's
 * fee is a validated customer invoice of its own, in the partner's balance and aged receivables.
 */
describe('dunning, end to end', () => {
  const suite = invoicingSuite('Consulting');
  const dunning = (body: Record<string, unknown>) => suite.post('/invoicing/dunning', body);
  let customer: number;
  let blockedCustomer: number;
  let invoice: number;
  let blockedInvoice: number;

  async function issued(partner: number, price: string): Promise<number> {
    const inv = (
      await ok(
        suite.post('/invoicing/invoice/new', {
          invoicetype: 'invoiceout',
          partner,
          invoicedatetime: '2026-01-01T09:00:00',
          invoicedue: '2026-01-31',
          line_items: [{ product_id: suite.product, quantity: 1, price, tax_rate: 0, tax_included: false }],
        }),
      )
    ).body.invoice;
    await ok(suite.post('/invoicing/invoice/new', { validate_invoice: true, id: inv.id }));
    return inv.id as number;
  }

  beforeAll(async () => {
    const partner = async (partnername: string, extra: Record<string, unknown> = {}) =>
      (await ok(suite.post('/crm/editpatner', { action: 'create', partnername, partner_type: 'customer', currency: 'EUR', ...extra }))).body
        .partner.id as number;
    customer = await partner('Late Payer Ltd');
    blockedCustomer = await partner('Protected Ltd', { dunning_blocked: true });
    invoice = await issued(customer, '1000.00');
    blockedInvoice = await issued(blockedCustomer, '500.00');
    await ok(
      dunning({
        action: 'levels',
        reference_rate: '4.5',
        levels: [
          { level: 1, days_after_due: 7, fee: '0', interest: false, text: 'Reminder' },
          { level: 2, days_after_due: 21, fee: '5.00', interest: true, text: 'Second reminder' },
          { level: 3, days_after_due: 35, fee: '10.00', interest: true, text: 'Final notice' },
        ],
      }),
    );
  }, 120_000);

  const run = async (as_of: string) => (await ok(dunning({ action: 'run', as_of }))).body;
  const figures = (letters: Array<Record<string, unknown>>) =>
    letters.map((l) => [l.invoice_id, l.level, l.days_overdue, l.interest_rate, l.interest, l.fee, l.total]);

  it('sends level 1, 2 and 3 at three dates, once each, with the hand-computed interest and fees', async () => {
    const first = await run('2026-02-07');
    expect(figures(first.letters)).toEqual([[invoice, 1, 7, null, 0, 0, 1000]]);
    expect(first.skipped).toEqual([{ invoice_id: blockedInvoice, reason: 'partner_blocked' }]);
    expect((await run('2026-02-07')).letters).toEqual([]);

    // Two runs at once: each letter goes out once between them. 1,000.00 × 12.5 % × 21 / 365 = 7.19.
    const [a, b] = await Promise.all([dunning({ action: 'run', as_of: '2026-02-21' }), dunning({ action: 'run', as_of: '2026-02-21' })]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(figures([...a.body.letters, ...b.body.letters])).toEqual([[invoice, 2, 21, 12.5, 7.19, 5, 1012.19]]);

    // 1,000.00 × 12.5 % × 35 / 365 = 11.99.
    expect(figures((await run('2026-03-07')).letters)).toEqual([[invoice, 3, 35, 12.5, 11.99, 10, 1021.99]]);
    const after = await run('2026-06-30');
    expect(after.letters).toEqual([]);
    expect(after.skipped).toEqual(
      expect.arrayContaining([
        { invoice_id: invoice, reason: 'last_level_sent' },
        { invoice_id: blockedInvoice, reason: 'partner_blocked' },
      ]),
    );
  });

  it('lists the letters, and each is one invoicing.dunning.sent event', async () => {
    const listed = (await ok(dunning({ action: 'list', invoice_id: invoice }))).body;
    expect(listed.letters.map((l: { level: number; as_of: string; text: string }) => [l.level, l.as_of, l.text])).toEqual([
      [3, '2026-03-07', 'Final notice'],
      [2, '2026-02-21', 'Second reminder'],
      [1, '2026-02-07', 'Reminder'],
    ]);
    const sent = await suite
      .invoicingDb('outbox')
      .where({ type: 'invoicing.dunning.sent', org_id: 1 })
      .select<Array<{ envelope: { data: { id: number; level: number; invoice_id: number } } }>>('envelope');
    expect(sent.map((r) => [r.envelope.data.invoice_id, r.envelope.data.level]).sort()).toEqual([
      [invoice, 1],
      [invoice, 2],
      [invoice, 3],
    ]);
  });

  it('refuses levels out of order, naming the field and changing nothing', async () => {
    await suite.unchangedBy(
      () => dunning({ action: 'levels', levels: [{ level: 2, days_after_due: 7, fee: '0', interest: false, text: 'x' }] }),
      (r) => {
        expect(r.statusCode).toBe(400);
        expect(r.body.errors.map((e: { field: string }) => e.field)).toContain('levels');
      },
    );
  });
  it('answers a letter as the PDF its customer receives, with the partner as the partners service has it', async () => {
    const [third] = (await ok(dunning({ action: 'list', invoice_id: invoice, level: 3 }))).body.letters;
    const file = (await ok(dunning({ action: 'get', id: third.id, format: 'pdf' }))).body;
    expect(file).toMatchObject({ id: third.id, format: 'pdf', content_type: 'application/pdf' });
    const text = pdfText(Buffer.from(file.content_base64, 'base64'));
    for (const expected of [
      'Third payment reminder',
      'Late Payer Ltd',
      third.invoicenumber,
      'Final notice',
      '€11.99',
      '€10.00',
      '€1,021.99',
    ])
      expect([expected, text.includes(expected)]).toEqual([expected, true]);
  });

  it('skips a disputed invoice until the mark is cleared', async () => {
    const contested = await issued(customer, '300.00');
    const marked = (await ok(dunning({ action: 'dispute', invoice_id: contested, disputed: true, reason: 'Wrong quantity' }))).body;
    expect(marked).toMatchObject({ invoice_id: contested, disputed: true, reason: 'Wrong quantity' });
    const skipped = await run('2026-02-07');
    expect(skipped.letters).toEqual([]);
    expect(skipped.skipped).toEqual(expect.arrayContaining([{ invoice_id: contested, reason: 'disputed' }]));
    await ok(dunning({ action: 'dispute', invoice_id: contested, disputed: false }));
    expect(figures((await run('2026-02-07')).letters)).toEqual([[contested, 1, 7, null, 0, 0, 300]]);
  });
  it('refuses to mark a vendor bill disputed, naming invoice_id and changing nothing', async () => {
    const vendor = (await ok(suite.post('/crm/editpatner', { action: 'create', partnername: 'Supplier Ltd', partner_type: 'vendor' }))).body
      .partner.id as number;
    const bill = (
      await ok(
        suite.post('/invoicing/invoice/new', {
          invoicetype: 'invoicein',
          partner: vendor,
          line_items: [{ product_id: suite.product, quantity: 1, price: '10.00', tax_rate: 0, tax_included: false }],
        }),
      )
    ).body.invoice.id as number;
    await suite.unchangedBy(
      () => dunning({ action: 'dispute', invoice_id: bill, disputed: true }),
      (r) => {
        expect(r.statusCode).toBe(400);
        expect(r.body.errors.map((e: { field: string }) => e.field)).toContain('invoice_id');
      },
    );
  });

  it('with post_fees, a letter’s fee is a validated invoice of its own: in the partner’s balance and aged receivables', async () => {
    const payer = (
      await ok(suite.post('/crm/editpatner', { action: 'create', partnername: 'Fee Payer Ltd', partner_type: 'customer', currency: 'EUR' }))
    ).body.partner.id as number;
    const reminded = await issued(payer, '200.00');
    const set = (await ok(dunning({ action: 'levels', post_fees: true }))).body;
    expect(set).toMatchObject({ post_fees: true, fee_tax: { category: 'E', rate: 0 } });
    const mine = (letters: Array<Record<string, any>>) => letters.filter((l) => l.invoice_id === reminded);
    expect(mine((await run('2026-02-07')).letters).map((l) => [l.level, l.fee_invoice_id])).toEqual([[1, null]]);

    const [letter] = mine((await run('2026-02-21')).letters);
    expect(letter).toMatchObject({ level: 2, fee: 5, fee_invoice_id: expect.any(Number) });
    const fee = letter!.fee_invoice_id as number;
    const [posted] = (await ok(suite.post('/invoicing/getinvoice', { id: fee, include_items: true }))).body.invoices;
    expect(posted).toMatchObject({ invoicetype: 'invoiceout', invoicetotal: 5, due_amount: 5 });
    expect(posted.line_items.map((l: { product_name: string }) => l.product_name)).toEqual([
      `Reminder fee: ${letter!.invoicenumber}, level 2`,
    ]);
    expect((await ok(dunning({ action: 'get', id: letter!.id }))).body.letter.fee_invoice_id).toBe(fee);
    // The run repeated: nothing more.
    expect(mine((await run('2026-02-21')).letters)).toEqual([]);
    expect(
      await suite.invoicingDb('invoices').where({ org_id: 1, partner_id: payer, sourcetype: 'dunning_letter' }).count('* as n').first(),
    ).toEqual({ n: 1 });

    await eventually(async () => {
      const { partner } = (await ok(suite.post('/crm/partners', { partner_id: payer }))).body;
      expect(partner.balance).toBe(205);
    });
    const aged = (await ok(suite.post('/invoicing/reports', { report: 'aged_receivables', as_of: '2026-02-21' }))).body;
    const row = aged.partners.find((p: { partner: number }) => p.partner === payer);
    expect(row.documents.map((d: { invoice_id: number; open_amount: number }) => [d.invoice_id, d.open_amount])).toEqual([
      [reminded, 200],
      [fee, 5],
    ]);
  });
});
