import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { eventually, startTestSystem, type TestSystem } from '../support/system';

/**
 * Receiving e-invoices through the gateway (docs/inbound.md): an official example imported, held for
 * review while its supplier is unknown, its original kept byte for byte; the same bytes again answer
 * the first import; the same supplier, number and date again is a 409; a copy without BT-1 is
 * rejected by the rules and makes no bill; a billion-laughs file is a 400.
 */
const EXAMPLE = readFileSync(join(__dirname, '../einvoice-examples/ubl/ubl-tc434-example6.xml'));
const PATH = '/invoicing/inbound';
const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');

describe('importing e-invoices', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    // The gateway's default RPC timeout (5 s): an import states a longer one of its own (60 s).
    sys = await startTestSystem({ env: { EINVOICE_RULES_WARM: 'on' } });
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
  });

  const importFile = (bytes: Buffer | string, org: 1 | 2 = 1) =>
    sys.post(PATH, { org_id: String(org), userid: 'u1', action: 'import', content_base64: b64(bytes), filename: 'in.xml' }, { org });

  it('holds a document of an unknown supplier for review, keeps its original, and answers the same bytes with the same import', async () => {
    // The first validation after a start (a new rules thread parsing its rules) fits in the import's own 60 s.
    const first = await importFile(EXAMPLE);
    expect(first.statusCode).toBe(200);
    const inbound = first.body.inbound;
    expect(inbound).toMatchObject({
      status: 'needs_review',
      syntax: 'ubl',
      invoice_number: 'TOSL110',
      issue_date: '2013-04-10',
      currency: 'DKK',
      seller: { vat_id: 'DK123456789MVA', partner_id: null },
      totals: { line_extension: '4000.00', tax: '675.00', tax_inclusive: '4675.00', payable: '4675.00' },
      validation: { fatal: [] },
      invoice_id: null,
      sha256: createHash('sha256').update(EXAMPLE).digest('hex'),
    });
    expect(inbound.review_reasons[0]).toMatch(/^supplier: no partner has the VAT id DK123456789MVA/);

    const again = await importFile(EXAMPLE);
    expect(again.statusCode).toBe(200);
    expect(again.body.inbound.id).toBe(inbound.id);

    const original = await sys.post(PATH, { org_id: '1', action: 'get', id: inbound.id, format: 'original' });
    expect(original.statusCode).toBe(200);
    expect(Buffer.from(original.body.content_base64 as string, 'base64').equals(EXAMPLE)).toBe(true);
    expect(original.body.content_type).toBe('application/xml');

    const listed = await sys.post(PATH, { org_id: '1', action: 'list', status: 'needs_review' });
    expect(listed.body.inbound.map((i: { id: number }) => i.id)).toEqual([inbound.id]);
    // Another organization sees none of it.
    const other = await sys.post(PATH, { org_id: '2', action: 'list' }, { org: 2 });
    expect(other.body.inbound).toEqual([]);
  }, 120_000);

  it('waits for an import past the gateway RPC timeout, as its operation states: one held 6 s behind a lock still answers 200', async () => {
    const db = new pg.Client({ connectionString: sys.databaseUrl });
    await db.connect();
    try {
      await db.query('begin');
      await db.query('lock table invoicing.inbound_documents in share mode');
      const sent = Date.now();
      const importing = importFile(EXAMPLE.toString('utf8').replace('TOSL110', 'HELD-1'));
      const waiting = async () =>
        (await db.query(`select 1 from pg_locks where not granted and relation = 'invoicing.inbound_documents'::regclass`)).rowCount;
      await eventually(async () => expect(await waiting()).toBe(1), { timeoutMs: 30_000 });
      // Held past the 5 s a request without a timeout of its own is given, then let go.
      await new Promise((r) => setTimeout(r, Math.max(0, 6000 - (Date.now() - sent))));
      await db.query('commit');
      const answer = await importing;
      expect([answer.statusCode, answer.body.inbound?.invoice_number, Date.now() - sent > 5000]).toEqual([200, 'HELD-1', true]);
    } finally {
      await db.end();
    }
  }, 60_000);

  it('answers two imports racing with the same bytes as one import, and two racing copies of one number with one 409', async () => {
    const numbered = (number: string, note = '') => EXAMPLE.toString('utf8').replace('TOSL110', number) + note;
    const same = numbered('RACE-1');
    const [a, b] = await Promise.all([importFile(same), importFile(same)]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(a.body.inbound.id).toBe(b.body.inbound.id);

    const racing = await Promise.all([
      importFile(numbered('RACE-2', '<!-- copy a -->')),
      importFile(numbered('RACE-2', '<!-- copy b -->')),
    ]);
    expect(racing.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(racing.find((r) => r.statusCode === 409)!.body.code).toBe('duplicate_document');
  }, 120_000);

  it('answers the same supplier, number and date in other bytes 409 duplicate_document naming the earlier import', async () => {
    const first = await importFile(EXAMPLE, 2);
    expect(first.body.inbound.status).toBe('needs_review');
    const copy = Buffer.concat([EXAMPLE, Buffer.from('\n<!-- sent again -->\n')]);
    const dup = await importFile(copy, 2);
    expect(dup.statusCode).toBe(409);
    expect(dup.body.code).toBe('duplicate_document');
    expect(dup.body.message).toContain(`import ${first.body.inbound.id}`);
    const listed = await sys.post(PATH, { org_id: '2', action: 'list' }, { org: 2 });
    expect(listed.body.inbound).toHaveLength(1);
  }, 120_000);

  it('rejects a copy without its number (BT-1) by rule BR-02, keeps it and makes no bill', async () => {
    const corrupted = EXAMPLE.toString('utf8').replace(/<cbc:ID>TOSL110<\/cbc:ID>/, '');
    expect(corrupted).not.toContain('TOSL110');
    const res = await importFile(corrupted);
    expect(res.statusCode).toBe(200);
    expect(res.body.inbound.status).toBe('rejected');
    expect(res.body.inbound.invoice_id).toBeNull();
    expect(res.body.inbound.validation.fatal.map((f: { rule: string }) => f.rule)).toContain('BR-02');
    const kept = await sys.post(PATH, { org_id: '1', action: 'get', id: res.body.inbound.id, format: 'original' });
    expect(Buffer.from(kept.body.content_base64 as string, 'base64').toString('utf8')).toBe(corrupted);
  }, 120_000);

  it('refuses a billion-laughs file with a 400 naming content_base64, for its DOCTYPE before any expansion, and stores nothing', async () => {
    const lol = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><Invoice>&lol3;</Invoice>`;
    const res = await importFile(lol, 2);
    expect(res.statusCode).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors[0].field).toBe('content_base64');
    expect(res.body.message).toMatch(/doctype/i);
    const listed = await sys.post(PATH, { org_id: '2', action: 'list' }, { org: 2 });
    expect(listed.body.inbound).toHaveLength(1);
  });

  it('matches a known supplier by its VAT id (BT-31), written differently, and holds only the unmapped lines for review', async () => {
    const vendor = await sys.client.partners.partner.create({
      org_id: '1',
      userid: 'u1',
      action: 'create',
      partnername: 'Supplier NL',
      partner_type: 'vendor',
      tax_number: 'nl 809.163.160.b01',
    });
    const example9 = readFileSync(join(__dirname, '../einvoice-examples/ubl/ubl-tc434-example9.xml'));
    const res = await importFile(example9);
    expect(res.statusCode).toBe(200);
    expect(res.body.inbound).toMatchObject({
      status: 'needs_review',
      invoice_number: '20150483',
      seller: { vat_id: 'NL809163160B01', partner_id: vendor.partner.id },
      invoice_id: null,
    });
    expect(res.body.inbound.review_reasons).toEqual([
      'line 1: no product mapped for "IExpress licentiekosten" (no seller item id or standard id)',
    ]);
    const bySupplier = await sys.post(PATH, { org_id: '1', action: 'list', partner: vendor.partner.id });
    expect(bySupplier.body.inbound.map((i: { id: number }) => i.id)).toEqual([res.body.inbound.id]);
  }, 120_000);

  it('rejects by hand an import held for review, and refuses to reject it twice', async () => {
    const listed = await sys.post(PATH, { org_id: '1', action: 'list', status: 'needs_review' });
    const id = listed.body.inbound[0].id as number;
    const res = await sys.post(PATH, { org_id: '1', userid: 'u1', action: 'reject', id, reason: 'Not ours' });
    expect(res.body.inbound).toMatchObject({ id, status: 'rejected', rejection_reason: 'Not ours' });
    const twice = await sys.post(PATH, { org_id: '1', userid: 'u1', action: 'reject', id, reason: 'Not ours' });
    expect(twice.statusCode).toBe(400);
    expect(twice.body.code).toBe('invalid_state');
  });

  it('accepts a review with the products chosen per line: the bill says what the document says, and the next document of the supplier maps its products itself', async () => {
    const vendor = (
      await sys.client.partners.partner.create({
        org_id: '1',
        userid: 'u1',
        action: 'create',
        partnername: 'Danish Supplier',
        partner_type: 'vendor',
        tax_number: 'DK16356706',
      })
    ).partner;
    const products: number[] = [];
    for (const name of ['Paper', 'Pens', 'Cookies']) {
      products.push((await sys.client.catalog.product.create({ org_id: '1', userid: 'u1', name, type: 'service', price: 1 })).product.id);
    }
    const example = readFileSync(join(__dirname, '../einvoice-examples/ubl/ubl-tc434-example4.xml'));
    const held = await importFile(example);
    expect(held.statusCode).toBe(200);
    expect(held.body.inbound).toMatchObject({
      status: 'needs_review',
      invoice_number: 'TOSL110',
      seller: { partner_id: vendor.id },
      payment: { iban: 'DK1212341234123412', means_code: '30', reference: 'Payref1', due_date: '2013-05-10' },
    });
    expect(held.body.inbound.review_reasons).toEqual([
      'line 1: no product mapped for seller:JB007',
      'line 2: no product mapped for seller:JB008',
      'line 3: no product mapped for seller:JB009',
    ]);
    const id = held.body.inbound.id as number;
    const accept = (line_products: Array<{ line: string; product_id: number }>) =>
      sys.post(PATH, { org_id: '1', userid: 'u1', action: 'accept', id, line_products });

    // A line the document does not have is a 400 naming it; a line left without a product is still
    // a reason, a 400 naming line_products. Neither changes anything.
    const wrongLine = await accept([{ line: '9', product_id: products[0]! }]);
    expect(wrongLine.statusCode).toBe(400);
    expect(wrongLine.body.errors[0].field).toBe('line_products.0.line');
    const half = await accept([{ line: '1', product_id: products[0]! }]);
    expect(half.statusCode).toBe(400);
    expect(half.body.errors).toEqual([
      { field: 'line_products', message: 'line 2: no product mapped for seller:JB008' },
      expect.anything(),
    ]);

    const choices = ['1', '2', '3'].map((line, i) => ({ line, product_id: products[i]! }));
    const accepted = await accept(choices);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.body.inbound).toMatchObject({ id, status: 'bill_created', review_reasons: [], seller: { partner_id: vendor.id } });
    const billId = accepted.body.inbound.invoice_id as number;
    expect(billId).toEqual(expect.any(Number));
    const bills = await sys.client.invoicing.invoice.list({ org_id: '1', page_size: 100 });
    const bill = bills.invoices.find((i) => i.id === billId)!;
    const totals = held.body.inbound.totals as Record<string, string>;
    expect(bill).toMatchObject({
      invoicetype: 'invoicein',
      invoicestatus: 'draft',
      invoicedue: '2013-05-10',
      currency: 'DKK',
      subtotal: Number(totals.tax_exclusive),
      tax_amount: Number(totals.tax),
      invoicetotal: Number(totals.tax_inclusive),
    });
    const withLines = await sys.client.invoicing.invoice.balances({ org_id: '1', id: billId, include_items: true });
    expect(withLines.invoices[0]!.line_items!.map((l) => [l.product_id, l.uom, Number(l.quantity), Number(l.price)])).toEqual([
      [String(products[0]), 'EA', 1000, 1],
      [String(products[1]), 'EA', 100, 5],
      [String(products[2]), 'EA', 500, 5],
    ]);

    // Accepting again is refused: the review is closed.
    const twice = await accept(choices);
    expect(twice.statusCode).toBe(400);
    expect(twice.body.code).toBe('invalid_state');

    // The supplier's next document names the same items (BT-155): the mapping makes its bill at once.
    const next = await importFile(example.toString('utf8').replace('<cbc:ID>TOSL110</cbc:ID>', '<cbc:ID>TOSL111</cbc:ID>'));
    expect(next.statusCode).toBe(200);
    expect(next.body.inbound).toMatchObject({ status: 'bill_created', invoice_number: 'TOSL111', review_reasons: [] });
    expect(next.body.inbound.invoice_id).toBeGreaterThan(billId);
  }, 180_000);

  it('holds an unknown supplier for review while inbound_create_partners is off, and creates it as a vendor once it is on', async () => {
    const example9 = readFileSync(join(__dirname, '../einvoice-examples/ubl/ubl-tc434-example9.xml'));
    const settings = (body: Record<string, unknown>) =>
      sys.post(PATH, { org_id: '2', userid: 'u2', action: 'settings', ...body }, { org: 2 });
    expect((await settings({})).body.settings).toEqual({ inbound_create_partners: false });

    const held = await importFile(example9, 2);
    expect(held.body.inbound).toMatchObject({ status: 'needs_review', seller: { vat_id: 'NL809163160B01', partner_id: null } });
    expect(held.body.inbound.review_reasons[0]).toMatch(
      /^supplier: no partner has the VAT id NL809163160B01.*inbound_create_partners is off$/,
    );
    await sys.post(PATH, { org_id: '2', userid: 'u2', action: 'reject', id: held.body.inbound.id, reason: 'Sent again' }, { org: 2 });

    expect((await settings({ inbound_create_partners: true })).body.settings).toEqual({ inbound_create_partners: true });
    const made = await importFile(Buffer.concat([example9, Buffer.from('\n')]), 2);
    expect(made.statusCode).toBe(200);
    const partnerId = made.body.inbound.seller.partner_id as number;
    expect(partnerId).toEqual(expect.any(Number));
    // Only the unmapped line is left for review; the supplier is a vendor with the document's name and VAT id.
    expect(made.body.inbound.review_reasons).toEqual([
      'line 1: no product mapped for "IExpress licentiekosten" (no seller item id or standard id)',
    ]);
    const vendors = await sys.clientOf(2).partners.partner.list({ org_id: '2', partner_type: 'vendor' });
    expect(vendors.partners.find((p) => p.id === partnerId)).toMatchObject({ tax_number: 'NL809163160B01', partner_type: 'vendor' });
    // The organization's setting is its own: organization 1's is still off.
    expect((await sys.post(PATH, { org_id: '1', userid: 'u1', action: 'settings' })).body.settings).toEqual({
      inbound_create_partners: false,
    });
  }, 120_000);
});
