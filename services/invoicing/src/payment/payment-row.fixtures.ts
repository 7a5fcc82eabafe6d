import type { PaymentRow } from './payment.record';

/** PAY-30, the row the cash specifications start from: 100.00 EUR received on 5 November from partner 40, all of it allocated. */
export const postedPaymentRow = (over: Partial<PaymentRow> = {}): PaymentRow => ({
  id: 30,
  org_id: 1,
  invoice_id: null,
  partner_id: 40,
  direction: 'in',
  amount: '100.00',
  currency: 'EUR',
  payment_date: '2026-11-05',
  method: null,
  reference: null,
  journal: 'Bank',
  status: 'posted',
  exchange_rate: null,
  accounting_amount: '100.00',
  allocated: '100.00',
  refunded: '0.00',
  journal_entry_id: 300,
  void_journal_entry_id: null,
  void_reason: null,
  voided_at: null,
  created_at: new Date('2026-11-05T09:00:00Z'),
  ...over,
});
