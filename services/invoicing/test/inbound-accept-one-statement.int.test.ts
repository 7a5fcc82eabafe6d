import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as testing from '@bo/testkit';
import { inboundById, toInboundRecord } from '../src/inbound/inbound.repository';
import { body, startWithFakePartners } from './fixtures';

// An accept decided on an unlocked read and stored as one statement: the bill, the supplier's
// mapping and the import's close together, or nothing of them, and the locked way decides again.
const EXAMPLE = readFileSync(join(__dirname, '../../../tests/einvoice-examples/ubl/ubl-tc434-example4.xml'));
const VENDOR = 31;

describe('invoicing service: an import accepted as one statement', () => {
  let svc: testing.TestService;
  beforeAll(async () => {
    ({ svc } = await startWithFakePartners([
      {
        org: 1,
        id: VENDOR,
        partnername: 'Danish Supplier',
        credit_limit: 0,
        balance: 0,
        partner_type: 'vendor',
        record: { tax_number: 'DK16356706' },
      },
    ]));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  /** An import of the example held for review, its supplier known and its three lines without products, under the number given. */
  async function held(number: string): Promise<number> {
    const original = Buffer.from(EXAMPLE.toString('utf8').replace('<cbc:ID>TOSL110</cbc:ID>', `<cbc:ID>${number}</cbc:ID>`));
    const [row] = await svc
      .db('inbound_documents')
      .insert({
        org_id: 1,
        status: 'needs_review',
        syntax: 'ubl',
        original,
        sha256: createHash('sha256').update(original).digest('hex'),
        content_type: 'application/xml',
        supplier_key: 'vat:DK16356706',
        partner_id: VENDOR,
        invoice_number: number,
        issue_date: '2013-04-10',
        summary: JSON.stringify({
          customization_id: null,
          currency: 'DKK',
          seller: { name: 'SubscriptionSeller', vat_id: 'DK16356706', endpoint_id: null },
          totals: { line_extension: '5000.00', tax_exclusive: '5000.00', tax: '1250.00', tax_inclusive: '6250.00', payable: '6250.00' },
        }),
        validation: JSON.stringify({ fatal: [], warnings: [] }),
        review_reasons: JSON.stringify(['line 1: no product mapped for seller:JB007']),
      })
      .returning<Array<{ id: number }>>('id');
    return row!.id;
  }
  const accept = (id: number) =>
    svc.call('invoicing.inbound.accept', {
      action: 'accept',
      userid: 'u1',
      id,
      line_products: ['1', '2', '3'].map((line, i) => ({ line, product_id: 101 + i })),
    });
  const numberOf = async (invoiceId: number) =>
    ((await svc.db('invoices').where({ id: invoiceId }).first()) as { invoicenumber: string }).invoicenumber;

  it('stores the bill, the mapping and the close in one statement, and answers and announces what it stored', async () => {
    const id = await held('TOSL110');
    const seen = await svc.collect(['invoicing.invoice.created', 'invoicing.inbound.bill_created']);
    const statements: string[] = [];
    const count = (q: { sql: string }) => statements.push(q.sql);
    svc.db.on('query', count);
    let reply: Record<string, any>;
    try {
      reply = body(await accept(id));
    } finally {
      svc.db.off('query', count);
    }
    const stored = (await inboundById(svc.db, 1, id))!;
    expect(reply).toEqual({ message: 'Bill created', inbound: toInboundRecord(stored) });
    expect(stored).toMatchObject({ status: 'bill_created', partner_id: VENDOR, review_reasons: [], invoice_id: expect.any(Number) });
    const writes = statements.filter((sql) => /insert into invoices/i.test(sql));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/insert into inbound_product_map[\s\S]*update inbound_documents[\s\S]*insert into outbox/);
    expect(statements.some((sql) => /^(begin|commit)/i.test(sql))).toBe(false);
    const mapped = await svc.db('inbound_product_map').where({ org_id: 1, partner_id: VENDOR }).orderBy('product_id');
    expect(mapped.map((m: { product_key: string; product_id: number }) => [m.product_key, m.product_id])).toEqual([
      ['seller:JB007', 101],
      ['seller:JB008', 102],
      ['seller:JB009', 103],
    ]);
    const invoiceId = stored.invoice_id!;
    await testing.eventually(() => expect(seen).toHaveLength(2));
    expect(seen.map((e) => e.type)).toEqual(['invoicing.invoice.created', 'invoicing.inbound.bill_created']);
    expect(seen[0]!.data).toMatchObject({ invoice_id: invoiceId, invoicenumber: await numberOf(invoiceId), invoicetype: 'invoicein' });
    expect(seen[1]!.data).toMatchObject({ inbound_id: id, status: 'bill_created', invoice_id: invoiceId, partner_id: VENDOR });
  });

  it('writes none of it when the import is rejected between its read and its store, and the locked way then refuses', async () => {
    const first = await held('TOSL120');
    body(await accept(first));
    const before = await numberOf((await inboundById(svc.db, 1, first))!.invoice_id!);
    const id = await held('TOSL121');
    // Another writer holds the import while the accept reads it; the accept's statement (which
    // starts with the bill's fence check) waits there, and the other writer rejects the import.
    const other = await svc.db.transaction();
    await other('inbound_documents').where({ id }).forUpdate();
    const reply = accept(id);
    await testing.waitUntil(async () => {
      const { rows } = await svc.db.raw<{ rows: unknown[] }>(
        `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like 'with store1 as (select partner_fenced(%'`,
      );
      return rows.length > 0;
    });
    await other('inbound_documents').where({ id }).update({ status: 'rejected', rejection_reason: 'Not ours', supplier_key: null });
    await other.commit();
    expect(await reply).toMatchObject({ ok: false, status: 400, code: 'invalid_state' });
    expect(await inboundById(svc.db, 1, id)).toMatchObject({ status: 'rejected', invoice_id: null });
    expect(await svc.db('invoices').where({ org_id: 1, invoicereference: 'TOSL121' })).toEqual([]);
    // The number the statement took went back with it: the next bill is numbered right after the one before.
    const next = await held('TOSL122');
    body(await accept(next));
    const after = await numberOf((await inboundById(svc.db, 1, next))!.invoice_id!);
    expect(Number(after.replace(/\D/g, ''))).toBe(Number(before.replace(/\D/g, '')) + 1);
  });
});
