import { isRefusal } from '@bo/runtime';
import { openInvoiceRow } from '../invoice/invoice-row.fixtures';
import { decidePaymentFile, type PaymentFileFacts, type PaymentFileLoad } from './decide-payment-file';

/** BILL-0007 (121.00 EUR, 21.00 paid) and BILL-0008 (40.00 EUR) of Supplies Ltd (partner 40), whose account is FR14…06. */
const bill7 = openInvoiceRow({ invoicenumber: 'BILL-0007', invoicetype: 'invoicein' });
const bill8 = openInvoiceRow({ id: 8, invoicenumber: 'BILL-0008', invoicetype: 'invoicein', invoicetotal: '40.00', amount_paid: '0.00' });
const facts: PaymentFileFacts = {
  ids: [7, 8],
  vendors: [[40, { name: 'Supplies Ltd', iban: 'FR1420041010050500013M02606', bic: null }]],
  debtor: { name: 'Org', iban: 'DE89370400440532013000', bic: null },
  executionDate: '2026-11-30',
};
const now = new Date('2026-11-28T10:00:00Z');
const load: PaymentFileLoad = {
  bills: new Map([
    [7, bill7],
    [8, bill8],
  ]),
  taken: new Map(),
  fileId: 12,
  now,
};

const refusalOf = (decide: () => unknown) => {
  try {
    decide();
  } catch (err) {
    return err as Error;
  }
  throw new Error('not refused');
};

describe('deciding a payment file', () => {
  it('given two open EUR bills of a vendor with an IBAN, when paid, then one transfer each for what it owes, under the file id drawn', () => {
    const plan = decidePaymentFile({ bills: [7, 8] }, facts, load, 1);
    if (plan.kind !== 'file') throw new Error('no file');
    expect(plan.file).toMatchObject({
      id: 12,
      message_id: 'PF-1-12',
      total: '140.00',
      transfers: 2,
      created_at: now,
      execution_date: '2026-11-30',
    });
    expect(plan.bills.map((b) => [b.invoice_id, b.amount, b.end_to_end_id, b.creditor_iban])).toEqual([
      [7, '100.00', 'PF12-7', 'FR1420041010050500013M02606'],
      [8, '40.00', 'PF12-8', 'FR1420041010050500013M02606'],
    ]);
    expect(plan.file.content).toContain('<MsgId>PF-1-12</MsgId>');
    expect(plan.reply).toMatchObject({
      message: 'Payment file PF-1-12: 2 transfer(s), 140.00 EUR',
      payment_file: { id: 12, message_id: 'PF-1-12', transfers: 2, total: 140, currency: 'EUR' },
    });
    expect(plan.reply.bills.map((b) => [b.invoicenumber, b.amount, b.status])).toEqual([
      ['BILL-0007', 100, 'in_payment'],
      ['BILL-0008', 40, 'in_payment'],
    ]);
    expect(Buffer.from(plan.reply.content_base64!, 'base64').toString('utf8')).toBe(plan.file.content);
  });

  it('given no bill due, when asked by due date, then no file, and a reply saying so', () => {
    expect(decidePaymentFile({ due_by: '2026-11-30' }, { ...facts, ids: [] }, load, 1)).toEqual({
      kind: 'none',
      reply: {
        message: 'No open EUR vendor bill is due by 2026-11-30 outside a payment file',
        payment_file: null,
        bills: [],
        content_base64: null,
      },
    });
  });

  it('given an organization without an IBAN, when paid, then it is refused on the field asked by', () => {
    const refused = refusalOf(() =>
      decidePaymentFile({ due_by: '2026-11-30' }, { ...facts, debtor: { ...facts.debtor, iban: null } }, load, 1),
    );
    expect(isRefusal(refused, 'bank.noOrganizationIban')).toBe(true);
  });

  it('given bills that cannot go in a file, when paid, then it is refused naming every problem', () => {
    const bills = new Map([
      [7, openInvoiceRow({ invoicenumber: 'BILL-0007' })],
      [8, bill8],
      [9, openInvoiceRow({ id: 9, invoicenumber: 'BILL-0009', invoicetype: 'invoicein', currency: 'USD' })],
      [10, openInvoiceRow({ id: 10, invoicenumber: 'BILL-0010', invoicetype: 'invoicein', invoicestatus: 'paid' })],
      [11, openInvoiceRow({ id: 11, invoicenumber: 'BILL-0011', invoicetype: 'invoicein', partner_id: 41 })],
    ]);
    const refused = refusalOf(() =>
      decidePaymentFile(
        { bills: [7, 8, 9, 10, 11, 12] },
        { ...facts, ids: [7, 8, 9, 10, 11, 12] },
        { ...load, bills, taken: new Map([[8, 3]]) },
        1,
      ),
    );
    expect(isRefusal(refused, 'bank.billsNotPayable')).toBe(true);
    expect(refused.message).toBe(
      [
        'BILL-0007 is not a vendor bill',
        'BILL-0008 is already in payment file 3',
        'BILL-0009 is in USD; SEPA transfers are in EUR',
        'BILL-0010 is not open',
        'the vendor of BILL-0011 has no IBAN in its bank_accounts',
        'bill 12 not found',
      ].join('; '),
    );
  });
});
