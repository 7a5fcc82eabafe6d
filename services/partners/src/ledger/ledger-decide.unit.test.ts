import type { EventEnvelope } from '@bo/contracts';
import { cancelledData, convertedData, paymentData, validatedData } from '../../test/ledger-events';
import { decideLedger, ledgerKeys, type LedgerState } from './ledger-decide';
import { ledgerStep } from './ledger-plan';

let seq = 0;
const step = (type: string, data: Record<string, unknown>, org_id = 1) =>
  ledgerStep({ id: `event-${++seq}`, type, occurred_at: '2026-03-01T10:00:00', org_id, data } satisfies EventEnvelope);
const validated = (invoiceId: number, total = 100, partner = 7, org = 1) =>
  step('invoicing.invoice.validated', validatedData(partner, invoiceId, 'invoiceout', total), org);
const cancelled = (invoiceId: number) => step('invoicing.invoice.cancelled', cancelledData(7, invoiceId));
const paid = (invoiceId: number, paymentId: number, amount: number) =>
  step('invoicing.invoice.payment_registered', paymentData(7, invoiceId, paymentId, amount));
const converted = (invoiceId: number, total = 115, partner = 7) =>
  step('sales.quotation.converted', convertedData(partner, invoiceId, total));

/** Partner 7 of organization 1, in EUR, with nothing posted yet. */
const given = (state: Partial<LedgerState> = {}): LedgerState => ({
  partners: [{ id: 7, org_id: 1, currency: 'EUR', accounting: 'EUR', version: '100' }],
  balances: [],
  commitments: [],
  posted: [],
  ...state,
});
const balanceRow = (fields: Partial<Record<'balance' | 'receivable' | 'committed', string>>) => ({
  partner_id: 7,
  currency: 'EUR',
  balance: '0',
  receivable: '0',
  committed: '0',
  documents_total: '0',
  documents_accounting: '0',
  booked_balance: '0',
  booked_receivable: '0',
  booked_face_balance: '0',
  booked_face_receivable: '0',
  ...fields,
});

describe('the ledger decides a batch on the state its load read', () => {
  it('loads what the events name: their partners, the invoices whose commitments they touch, the sources they post', () => {
    expect(ledgerKeys([validated(1), converted(2), paid(1, 9, 10)])).toEqual({
      partners: [
        [1, 7],
        [1, 7],
        [1, 7],
      ],
      invoices: [
        [1, 1],
        [1, 2],
      ],
      sources: [
        [1, 'invoice', 1],
        [1, 'payment', 9],
      ],
    });
  });

  it('posts a validation, leaves a released placeholder for its commitment, and weighs the partner on the balance it then has', () => {
    const plan = decideLedger([validated(1, 250.1)], given({ balances: [balanceRow({ balance: '10', receivable: '10' })] }));
    expect(plan.entries).toMatchObject([{ org_id: 1, source: 'invoice', source_id: 1, balance_effect: '250.1' }]);
    expect(plan.newCommitments).toMatchObject([{ invoice_id: 1, partner_id: null, amount: '0', status: 'released' }]);
    expect(plan.released).toEqual([]);
    expect(plan.moves).toMatchObject([{ partner_id: 7, currency: 'EUR', balance: '250.1', receivable: '250.1', committed: '0' }]);
    // Written over the version the figures were weighed on, so another instance's move meanwhile refuses them.
    expect(plan.figures).toEqual([{ partner_id: 7, balance: '260.1', receivable: '260.1', committed: '0', version: '100' }]);
  });

  it('releases an open commitment the load found, taking its amount out of committed', () => {
    const open = {
      org_id: 1,
      invoice_id: 3,
      partner_id: 7,
      quotation_id: 3,
      quotation_number: 'QUO-3',
      amount: '115',
      currency: null,
      status: 'open' as const,
    };
    const plan = decideLedger([cancelled(3)], given({ commitments: [open], balances: [balanceRow({ committed: '115' })] }));
    expect(plan.released).toEqual([{ org_id: 1, invoice_id: 3 }]);
    expect(plan.newCommitments).toEqual([]);
    expect(plan.figures).toMatchObject([{ partner_id: 7, committed: '0' }]);
    // Released already: nothing moves again.
    expect(decideLedger([cancelled(3)], given({ commitments: [{ ...open, status: 'released' }] }))).toMatchObject({
      released: [],
      newCommitments: [],
      moves: [],
      figures: [],
    });
  });

  it('applies a batch in its order: a conversion then its validation commits and releases, a cancellation then a late conversion adds nothing', () => {
    const plan = decideLedger([converted(1, 115), validated(1, 115), cancelled(2), converted(2, 40)], given());
    expect(plan.newCommitments).toMatchObject([
      { invoice_id: 1, partner_id: 7, amount: '115', status: 'released' },
      { invoice_id: 2, partner_id: null, amount: '0', status: 'released' },
    ]);
    expect(plan.moves).toMatchObject([{ committed: '0', balance: '115' }]);
    expect(plan.figures).toMatchObject([{ balance: '115', committed: '0' }]);
  });

  it('posts a source once: one posted before, or twice in the batch, adds nothing more', () => {
    expect(decideLedger([paid(1, 5, 30), paid(1, 5, 30)], given()).entries).toHaveLength(1);
    const before = decideLedger([paid(1, 5, 30)], given({ posted: [{ org_id: 1, source: 'payment', source_id: 5 }] }));
    expect(before).toMatchObject({ entries: [], moves: [], figures: [] });
    // The same invoice number in two organizations is two invoices.
    const two = given({
      partners: [
        { id: 7, org_id: 1, currency: 'EUR', accounting: 'EUR', version: '1' },
        { id: 8, org_id: 2, currency: 'EUR', accounting: 'EUR', version: '2' },
      ],
    });
    expect(decideLedger([validated(1, 10, 7, 1), validated(1, 10, 8, 2)], two).entries).toHaveLength(2);
  });

  it('posts and commits nothing for a partner the organization does not have, but still releases its invoice', () => {
    const plan = decideLedger([validated(1, 100, 999), converted(2, 50, 999)], given());
    expect(plan.unknownPartner.map((u) => u.partner_id)).toEqual([999, 999]);
    expect(plan).toMatchObject({ entries: [], moves: [], figures: [] });
    expect(plan.newCommitments).toMatchObject([{ invoice_id: 1, status: 'released', partner_id: null }]);
  });

  it('puts a move that names no currency in the partner’s, else the organization’s', () => {
    const noCurrency = given({ partners: [{ id: 7, org_id: 1, currency: null, accounting: 'CHF', version: '1' }] });
    expect(decideLedger([validated(1)], noCurrency).moves).toMatchObject([{ currency: 'CHF' }]);
    expect(decideLedger([validated(1)], given()).moves).toMatchObject([{ currency: 'EUR' }]);
  });

  it('names an event the ledger has nothing to do with', () => {
    const other = step('invoicing.invoice.sent', { invoice_id: 1 });
    expect(decideLedger([other], given()).unhandled).toEqual([other.event]);
  });
});
