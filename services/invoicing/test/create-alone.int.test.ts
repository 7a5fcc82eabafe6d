import { formatDate } from '@bo/kernel';
import * as testing from '@bo/testkit';
import { toInvoiceRecord, type InvoiceRow, type LineRow } from '../src/invoice/invoice.record';
import { body, specLine, startWithFakePartners, taxIncludedLine, tenthsLine, type FakePartner } from './fixtures';

const partnersTable: FakePartner[] = [
  { org: 1, id: 10, partnername: 'Acme Corp', credit_limit: 0, balance: 0 },
  { org: 1, id: 15, partnername: 'Supplier', credit_limit: 0, balance: 0, record: { partner_type: 'vendor' } },
];

/**
 * A create is stored as one statement as a rule (create-invoice.handler.ts `alone`): the invoice and
 * its lines written whole as decided (newInvoiceRows), its reply built from them rather than read
 * back. These hold that reply to what is stored, and what is stored to what the usual way (`apply`,
 * which takes the schema's defaults) stores for the same request.
 */
describe('invoicing service: a create stored as one statement', () => {
  let svc: testing.TestService;
  beforeAll(async () => {
    ({ svc } = await startWithFakePartners(partnersTable));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  // Dated, so two creates of one request are alike to the second.
  const dated = `${formatDate(new Date()) as string}T09:00:00`;
  const create = (payload: Record<string, unknown>) =>
    svc.call('invoicing.invoice.create', { userid: '5', invoicetype: 'invoiceout', partner: 10, invoicedatetime: dated, ...payload }, 1);
  const rowsOf = async (id: number) => ({
    row: (await svc.db('invoices').where({ id }).first()) as InvoiceRow & Record<string, unknown>,
    lines: (await svc.db('invoice_lines').where({ invoice_id: id }).orderBy('id')) as Array<LineRow & Record<string, unknown>>,
  });
  /** The next number of a series, as it stands. */
  const nextNumber = async (series: string) => {
    const row = await svc.db('document_sequences').where({ org_id: 1, series }).first();
    return `${series}${String(Number(row?.last_value ?? 0) + 1).padStart(5, '0')}`;
  };
  /** A row without what differs between two creates of one request: ids, number, times, the version's transaction. */
  const comparable = ({ row, lines }: Awaited<ReturnType<typeof rowsOf>>) => {
    const { id: _i, invoicenumber: _n, created_at: _c, updated_at: _u, version_xact: _x, ...rest } = row;
    return { ...rest, lines: lines.map(({ id: _l, invoice_id: _v, created_at: _t, ...line }) => line) };
  };

  const requests: Array<[string, Record<string, unknown>]> = [
    [
      'lines of every kind',
      { invoicedatetime: '2026-03-01T10:00:00', invoicedue: '2099-03-31', line_items: [specLine, taxIncludedLine, tenthsLine] },
    ],
    [
      'texts, references and accounts',
      { comments: 'c', invoicereference: 'PO-7', invoiceterms: 't', tradeaccount: 'Receivable X', line_items: [specLine] },
    ],
    ['a recurring contract', { recurring: { enabled: true, frequency: 'monthly', occurrences_count: 3 }, line_items: [specLine] }],
    [
      'allowances and charges',
      {
        allowances_charges: [
          { charge: true, amount: 5, tax_category: 'S', tax_rate: 15, reason: 'Freight' },
          { charge: false, percent: 10, base_amount: 100, tax_category: 'S', tax_rate: 15, reason: 'Loyalty' },
        ],
        line_items: [specLine],
      },
    ],
    ['a vendor bill', { invoicetype: 'invoicein', partner: 15, line_items: [tenthsLine] }],
  ];

  it.each(requests)('answers %s as stored, and stores it as the usual way stores it', async (_name, request) => {
    const series = request['invoicetype'] === 'invoicein' ? 'BILL-' : 'INV-';
    const alone = body(await create(request)).invoice;
    const stored = await rowsOf(alone.id);
    expect(alone).toEqual(toInvoiceRecord(stored.row, stored.lines, formatDate(new Date()) as string, 'not_paid'));

    // The series' next number typed by hand into another invoice: the one statement finds it taken,
    // writes nothing, and the usual way numbers the twin with the next free one.
    const typed = await nextNumber(series);
    body(await create({ ...request, invoicenumber: typed }));
    const twin = body(await create(request)).invoice;
    expect(twin.invoicenumber).toBe(
      await svc
        .db('document_sequences')
        .where({ org_id: 1, series })
        .first()
        .then((r) => `${series}${String(r.last_value).padStart(5, '0')}`),
    );
    expect(twin.invoicenumber).not.toBe(typed);
    expect(comparable(await rowsOf(twin.id))).toEqual(comparable(stored));
  });

  it('writes nothing, not even a number, when the one statement refuses: the usual way answers', async () => {
    const before = await nextNumber('INV-');
    const taken = body(await create({ invoicenumber: 'HAND-1', line_items: [specLine] })).invoice;
    expect(await nextNumber('INV-')).toBe(before);
    expect(await create({ invoicenumber: 'HAND-1', line_items: [specLine] })).toMatchObject({ ok: false, status: 400 });
    expect(await svc.db('invoices').where({ invoicenumber: 'HAND-1' })).toHaveLength(1);
    expect((await rowsOf(taken.id)).lines).toHaveLength(1);
  });
});
