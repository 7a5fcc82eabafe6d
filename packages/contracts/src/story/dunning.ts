import { addDays, step, type ExampleStep } from './scene';

/**
 * Reminders (docs/dunning.md): three levels, the statutory rate and fee posting set, a dry run today (no invoice
 * of the story is overdue: they fall due in 14 days), then the customer contests INV-00002 and a run
 * three weeks on skips it as disputed; cleared, the next run sends its first letter, read back
 * as the letter's record.
 */
export function dunningSteps(today: string, writer: { org_id: '1'; userid: '1' }, reader: { org_id: '1' }): ExampleStep[] {
  const levels = [
    { level: 1, days_after_due: 7, fee: 0, interest: false, text: 'A friendly reminder: the invoice below is past due.' },
    { level: 2, days_after_due: 21, fee: 5, interest: true, text: 'Second reminder, with a fee and statutory interest.' },
    { level: 3, days_after_due: 35, fee: 10, interest: true, text: 'Final notice before collection.' },
  ];
  const in14 = addDays(today, 14);
  const in21 = addDays(today, 21);
  const letter = {
    id: 1,
    invoice_id: 2,
    invoicenumber: 'INV-00002',
    partner: 1,
    level: 1,
    as_of: in21,
    due_date: in14,
    currency: 'EUR',
    due_amount: 53.32,
    days_overdue: 7,
    fee: 0,
    interest_rate: null,
    interest: 0,
    total: 53.32,
    text: levels[0]!.text,
    // Level 1 charges no fee: nothing to post.
    fee_invoice_id: null,
  };
  const feeTax = {
    category: 'E' as const,
    rate: 0,
    exemption_reason: 'Late-payment fee: compensation for late payment, not a supply; outside the scope of VAT',
    exemption_code: null,
  };
  return [
    step(
      'invoicing.dunning.levels',
      {
        ...writer,
        action: 'levels',
        levels: levels.map((l) => ({ ...l, fee: l.fee.toFixed(2) })),
        reference_rate: '4.5',
        points: '8',
        post_fees: true,
        fee_account: '4751 Late Payment Fees',
      },
      {
        message: '3 reminder level(s) set',
        levels,
        reference_rate: 4.5,
        points: 8,
        post_fees: true,
        fee_tax: feeTax,
        fee_account: '4751 Late Payment Fees',
      },
    ),
    step(
      'invoicing.dunning.run',
      { ...writer, action: 'run', as_of: today, dry_run: true },
      { message: `0 reminder letter(s) would be sent as of ${today}`, as_of: today, dry_run: true, letters: [], skipped: [] },
    ),
    step(
      'invoicing.dunning.list',
      { ...reader, action: 'list' },
      {
        message: 'No letters found',
        letters: [],
        pagination: { page_number: 1, page_size: 25, total_items: 0, total_pages: 0, has_next: false, has_previous: false },
      },
    ),
    step(
      'invoicing.dunning.dispute',
      { ...writer, action: 'dispute', invoice_id: 2, disputed: true, reason: 'The customer says two of the four items arrived damaged' },
      {
        message: 'Invoice INV-00002 marked disputed',
        invoice_id: 2,
        invoicenumber: 'INV-00002',
        disputed: true,
        reason: 'The customer says two of the four items arrived damaged',
        disputed_at: `${today}T09:00:00`,
      },
    ),
    step(
      'invoicing.dunning.run',
      { ...writer, action: 'run', as_of: in21 },
      {
        message: `0 reminder letter(s) sent as of ${in21}`,
        as_of: in21,
        dry_run: false,
        letters: [],
        skipped: [{ invoice_id: 2, reason: 'disputed' }],
      },
    ),
    step(
      'invoicing.dunning.dispute',
      { ...writer, action: 'dispute', invoice_id: 2, disputed: false },
      {
        message: 'Invoice INV-00002 no longer disputed',
        invoice_id: 2,
        invoicenumber: 'INV-00002',
        disputed: false,
        reason: null,
        disputed_at: null,
      },
    ),
    step(
      'invoicing.dunning.run',
      { ...writer, action: 'run', as_of: in21 },
      { message: `1 reminder letter(s) sent as of ${in21}`, as_of: in21, dry_run: false, letters: [letter], skipped: [] },
    ),
    step('invoicing.dunning.get', { ...reader, action: 'get', id: 1 }, { message: 'Letter retrieved successfully', letter }),
  ];
}
