import type { LineRow } from './bank.repository';

/** Line 21 of statement 3: money received from Acme, quoting nothing, unmatched; each specification sets its amount, day and state over it. */
export function bankLine(over: Partial<LineRow> = {}): LineRow {
  return {
    id: 21,
    org_id: 1,
    statement_id: 3,
    iban: 'DE89370400440532013000',
    natural_key: 'ref:R-21',
    amount: '100.00',
    currency: 'EUR',
    booking_date: '2026-11-02',
    value_date: null,
    bank_reference: 'R-21',
    end_to_end_id: null,
    structured_reference: null,
    remittance_text: 'thanks',
    counterparty_name: 'Acme',
    counterparty_iban: null,
    status: 'unmatched',
    ...over,
  };
}
