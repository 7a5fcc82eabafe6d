import type { InvoiceRow } from '../invoice/invoice.record';
import { openInvoiceRow } from '../invoice/invoice-row.fixtures';
import type { NewPaymentState } from '../payment/decide-new-payment';
import { bankLine } from './bank-line.fixtures';
import { decideReconcile, reconcileWayOf, type LinkedPayment, type ReconcileAsked, type ReconcileLoad } from './decide-reconcile';

/**
 * A line reconciled (reconcile-line.handler.ts, and import): line 21 of statement 3, 100.00 EUR
 * received on 2 November 2026 quoting RF18 0007, in an organization on UTC that books in EUR. Partner
 * 40 owes INV-0007 (121.00, 21.00 paid) and INV-0008 (50.00); partner 41 owes INV-0009. The load drew
 * reconciliation 8, and entry 700 when the reconcile posts one; create-payment's load drew payment 55,
 * its entry 900 and allocations from 301.
 */
const line = bankLine({ structured_reference: 'RF180007', remittance_text: 'INV-0007', status: 'suggested' });
const now = new Date('2026-11-28T10:00:00.123Z');
const doc = (over: Partial<InvoiceRow>) => ({ ...openInvoiceRow(over), next_version: (over.version ?? 3) + 1 });
const documents = new Map<number, InvoiceRow & { next_version: number }>([
  [7, doc({})],
  [8, doc({ id: 8, invoicenumber: 'INV-0008', invoicetotal: '50.00', amount_paid: '0.00', version: 1 })],
  [9, doc({ id: 9, invoicenumber: 'INV-0009', partner_id: 41 })],
]);
const made = (named: number[], over: Partial<NewPaymentState> = {}): NewPaymentState => ({
  settings: { lock_date: null, time_zone: null, default_currency: 'EUR' },
  documents: new Map([...documents].filter(([id]) => named.includes(id))),
  booked: new Map(),
  rates: [],
  ids: { entryId: 900, paymentId: 55, allocationIds: named.map((_, n) => 301 + n) },
  now,
  ...over,
});
const linked: LinkedPayment = { id: 30, status: 'posted', direction: 'in', amount: '100.00', currency: 'EUR', reconciledWith: null };
const given = (over: Partial<ReconcileLoad> = {}): ReconcileLoad => ({
  line,
  payment: undefined,
  accountingCurrency: 'EUR',
  ids: { reconciliationId: 8, entryId: 700 },
  ...over,
});
const ctx = { orgId: 1, userId: 'clerk', instant: now };
const asked = (over: Omit<ReconcileAsked, 'line_id'>): ReconcileAsked => ({ line_id: 21, ...over });
const refusal = (req: ReconcileAsked, load: ReconcileLoad) => {
  try {
    decideReconcile(req, load, ctx);
  } catch (err) {
    return err as { refusal: string; code: string; message: string };
  }
  throw new Error('expected the reconcile to be refused');
};

describe('a bank line reconciled', () => {
  describe('to an account', () => {
    it('given money in, when posted to an account, then the bank is debited, the account credited, and the line reconciled by that entry', () => {
      const plan = decideReconcile(asked({ account: '8000 Interest' }), given(), ctx);
      expect(plan.way).toBe('account');
      expect(plan.entry).toEqual({
        id: 700,
        header: {
          org_id: 1,
          invoice_id: null,
          payment_id: null,
          kind: 'bank',
          journalname: 'Bank',
          journaldate: '2026-11-02',
          reference: 'Bank line 21',
        },
        lines: [expect.objectContaining({ account: 'Bank' }), expect.objectContaining({ account: '8000 Interest' })],
      });
      expect(plan.entry!.lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
        ['Bank', '100.00', '0.00'],
        ['8000 Interest', '0.00', '100.00'],
      ]);
      expect(plan.reconciliation).toEqual({ id: 8, org_id: 1, line_id: 21, payment_id: null, made_payment: false, journal_entry_id: 700 });
      expect(plan.payment).toBeUndefined();
      expect(plan.line).toEqual({ ...line, status: 'reconciled' });
      expect(plan.reply).toEqual({
        message: 'Bank line 21 reconciled',
        line: expect.objectContaining({ id: 21, amount: 100, status: 'reconciled', payment_id: null, journal_entry_id: 700 }),
      });
    });

    it('given money out, when posted to an account, then the account is debited and the bank credited', () => {
      const plan = decideReconcile(asked({ account: '6800 Bank Charges' }), given({ line: { ...line, amount: '-2.50' } }), ctx);
      expect(plan.entry!.lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
        ['6800 Bank Charges', '2.50', '0.00'],
        ['Bank', '0.00', '2.50'],
      ]);
    });

    it('given an organization with no accounting currency, when posted, then the line is posted as it is', () => {
      expect(
        decideReconcile(asked({ account: 'X' }), given({ accountingCurrency: null, line: { ...line, currency: 'USD' } }), ctx).way,
      ).toBe('account');
    });

    it('given a line in another currency than the accounting one, when posted to an account, then it is refused', () => {
      expect(refusal(asked({ account: 'X' }), given({ line: { ...line, currency: 'USD' } }))).toMatchObject({
        refusal: 'bank.lineNotInAccountingCurrency',
        message: 'Line 21 is in USD; an account posting takes lines in the accounting currency EUR',
      });
    });
  });

  describe('with a posted payment', () => {
    it('given a posted payment of the line’s direction, amount and currency, when linked, then the line is reconciled with it and nothing is posted', () => {
      const plan = decideReconcile(asked({ payment_id: 30 }), given({ payment: linked, ids: { reconciliationId: 8, entryId: null } }), ctx);
      expect(plan.way).toBe('payment');
      expect(plan.reconciliation).toEqual({ id: 8, org_id: 1, line_id: 21, payment_id: 30, made_payment: false, journal_entry_id: null });
      expect(plan.entry).toBeUndefined();
      expect(plan.payment).toBeUndefined();
      expect(plan.reply.line).toMatchObject({ status: 'reconciled', payment_id: 30, journal_entry_id: null });
    });

    it('given no such payment, when linked, then it is not found', () => {
      expect(refusal(asked({ payment_id: 30 }), given())).toMatchObject({ code: 'not_found', message: 'Payment 30 not found' });
    });

    it('given a voided payment, when linked, then it is refused', () => {
      expect(refusal(asked({ payment_id: 30 }), given({ payment: { ...linked, status: 'voided' } }))).toMatchObject({
        refusal: 'bank.paymentNotPosted',
        message: 'Payment 30 is voided',
      });
    });

    it('given a payment of another direction, amount or currency, when linked, then it is refused', () => {
      for (const payment of [
        { ...linked, direction: 'out' },
        { ...linked, amount: '99.99' },
        { ...linked, currency: 'USD' },
      ])
        expect(refusal(asked({ payment_id: 30 }), given({ payment }))).toMatchObject({
          refusal: 'bank.paymentDoesNotMatchLine',
          message: 'Payment 30 is not in 100 EUR',
        });
    });

    it('given a payment another line is reconciled with, when linked, then it is refused naming that line', () => {
      expect(refusal(asked({ payment_id: 30 }), given({ payment: { ...linked, reconciledWith: 20 } }))).toMatchObject({
        refusal: 'bank.paymentAlreadyReconciled',
        message: 'Payment 30 is already reconciled with bank line 20',
      });
    });
  });

  describe('with a payment made of its money', () => {
    it('given an open invoice, when allocated, then create-payment’s decision makes the payment under the reconciliation’s key, and the line is reconciled with it', () => {
      const plan = decideReconcile(
        asked({ allocations: [{ invoice_id: 7, amount: '100' }] }),
        given({ newPayment: made([7]), ids: { reconciliationId: 8, entryId: null } }),
        ctx,
      );
      expect(plan.way).toBe('allocations');
      expect(plan.payment!.payment).toMatchObject({
        partner_id: 40,
        direction: 'in',
        amount: '100',
        currency: 'EUR',
        payment_date: '2026-11-02',
        method: 'bank_transfer',
        reference: 'RF180007',
        journal: 'Bank',
        allocated: '100.00',
        operation_key: 'bank-reconciliation:8',
        created_by: 'clerk',
      });
      expect(plan.payment!.allocations).toEqual([
        { id: 301, org_id: 1, invoice_id: 7, amount: '100.00', allocation_date: '2026-11-02', operation_key: 'bank-reconciliation:8' },
      ]);
      expect(plan.payment!.documents).toEqual([expect.objectContaining({ id: 7, amount_paid: '121.00', invoicestatus: 'paid' })]);
      expect(plan.payment!.event).toMatchObject({ payment_id: 55, journal_entry_id: 900, amount: 100 });
      expect(plan.reconciliation).toEqual({ id: 8, org_id: 1, line_id: 21, payment_id: 55, made_payment: true, journal_entry_id: null });
      expect(plan.entry).toBeUndefined();
      // Money in pays no bills of a payment file.
      expect(plan.paidBills).toEqual([]);
      expect(plan.reply.line).toMatchObject({ status: 'reconciled', payment_id: 55, journal_entry_id: null });
    });

    it('given vendor bills in a payment file, when a debit line’s payment pays one in full and part of another, then only the one paid in full leaves payment', () => {
      const bill = (id: number, total: string) =>
        doc({ id, invoicenumber: `BILL-${id}`, invoicetype: 'invoicein', invoicetotal: total, amount_paid: '0.00' });
      const bills = new Map([
        [11, bill(11, '60.00')],
        [12, bill(12, '90.00')],
      ]);
      const plan = decideReconcile(
        asked({
          allocations: [
            { invoice_id: 11, amount: '60' },
            { invoice_id: 12, amount: '40' },
          ],
        }),
        given({ line: { ...line, amount: '-100.00' }, newPayment: { ...made([11, 12]), documents: bills } }),
        ctx,
      );
      expect(plan.payment!.payment).toMatchObject({ direction: 'out', amount: '100', partner_id: 40 });
      expect(plan.paidBills).toEqual([11]);
    });

    it('given the partner’s credit asked, with a fee, when reconciled, then the payment is the line plus the fee and the fee is posted from the bank', () => {
      const plan = decideReconcile(
        asked({ partner: 40, fee: '1.50', fee_account: '6800 Bank Charges' }),
        given({ newPayment: made([]) }),
        ctx,
      );
      expect(plan.way).toBe('credit');
      expect(plan.payment!.payment).toMatchObject({ partner_id: 40, amount: '101.5', allocated: '0.00' });
      expect(plan.payment!.allocations).toEqual([]);
      expect(plan.entry!.id).toBe(700);
      expect(plan.entry!.header).toMatchObject({ kind: 'bank', reference: 'Bank fee line 21', journaldate: '2026-11-02' });
      expect(plan.entry!.lines.map((l) => [l.account, l.debit.toFixed(2), l.credit.toFixed(2)])).toEqual([
        ['6800 Bank Charges', '1.50', '0.00'],
        ['Bank', '0.00', '1.50'],
      ]);
      expect(plan.reconciliation).toEqual({ id: 8, org_id: 1, line_id: 21, payment_id: 55, made_payment: true, journal_entry_id: 700 });
      expect(plan.reply.line).toMatchObject({ payment_id: 55, journal_entry_id: 700 });
    });

    it('given money out and a fee as large as the line, when reconciled, then it is refused: nothing is left to pay', () => {
      expect(
        refusal(
          asked({ partner: 40, fee: '100', fee_account: '6800 Bank Charges' }),
          given({ line: { ...line, amount: '-100.00' }, newPayment: made([]) }),
        ),
      ).toMatchObject({ refusal: 'bank.feeLeavesNoPayment', message: 'The fee 100 leaves no payment of line 21' });
    });

    it('given allocations naming no document of the organization, or documents of two partners, when reconciled, then they are refused', () => {
      expect(refusal(asked({ allocations: [{ invoice_id: 99, amount: '10' }] }), given({ newPayment: made([]) }))).toMatchObject({
        refusal: 'bank.allocationsOfNoDocument',
      });
      const two = asked({
        allocations: [
          { invoice_id: 7, amount: '50' },
          { invoice_id: 9, amount: '50' },
        ],
      });
      expect(refusal(two, given({ newPayment: made([7, 9]) }))).toMatchObject({ refusal: 'bank.allocationsOfSeveralPartners' });
      // Judged before the line's status.
      expect(refusal(two, given({ line: { ...line, status: 'reconciled' }, newPayment: made([7, 9]) }))).toMatchObject({
        refusal: 'bank.allocationsOfSeveralPartners',
      });
    });

    it('given more allocated than the payment, when reconciled, then create-payment’s own refusal stands', () => {
      expect(refusal(asked({ allocations: [{ invoice_id: 8, amount: '150' }] }), given({ newPayment: made([8]) }))).toMatchObject({
        code: 'validation_failed',
      });
    });
  });

  describe('refused whatever the way', () => {
    it('given a request naming no way or more than one, a fee without its account, or a fee with no payment made, then it is refused, before the line is looked for', () => {
      const none = given({ line: undefined });
      expect(refusal(asked({}), none)).toMatchObject({ refusal: 'bank.oneReconcileChoiceRequired' });
      expect(refusal(asked({ account: 'X', payment_id: 30 }), none)).toMatchObject({ refusal: 'bank.oneReconcileChoiceRequired' });
      expect(refusal(asked({ partner: 40, fee: '1' }), none)).toMatchObject({ refusal: 'bank.feeAccountRequired' });
      expect(refusal(asked({ account: 'X', fee: '1', fee_account: 'Y' }), none)).toMatchObject({ refusal: 'bank.feeWithoutPayment' });
      expect(refusal(asked({ payment_id: 30, fee: '1', fee_account: 'Y' }), none)).toMatchObject({ refusal: 'bank.feeWithoutPayment' });
    });

    it('given allocations and a partner, then the way is the allocations, to the partner’s documents', () => {
      expect(reconcileWayOf(asked({ partner: 40, allocations: [{ invoice_id: 7, amount: '1' }] }))).toBe('allocations');
      expect(reconcileWayOf(asked({ partner: 40 }))).toBe('credit');
    });

    it('given no such line, then it is not found', () => {
      expect(refusal(asked({ account: 'X' }), given({ line: undefined }))).toMatchObject({
        code: 'not_found',
        message: 'Bank line 21 not found',
      });
    });

    it('given a reconciled or an ignored line, then it is refused', () => {
      expect(refusal(asked({ account: 'X' }), given({ line: { ...line, status: 'reconciled' } }))).toMatchObject({
        code: 'invalid_state',
        message: 'Bank line 21 is already reconciled',
      });
      expect(refusal(asked({ payment_id: 30 }), given({ line: { ...line, status: 'ignored' }, payment: linked }))).toMatchObject({
        code: 'invalid_state',
        message: 'Bank line 21 is ignored; unreconcile it first',
      });
    });
  });
});
