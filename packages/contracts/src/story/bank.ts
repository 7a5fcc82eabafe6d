import { base64Of } from './received';
import { step, type ExampleStep, type Reply } from './scene';

/** The bank account's story (docs/bank.md): its settings, a rule, a CSV statement of two lines, a fee posted, undone, a transfer set aside. */
export function bankSteps(today: string, writer: { org_id: '1'; userid: '1' }, reader: { org_id: '1' }): ExampleStep[] {
  const iban = 'IE29AIBK93115212345678';
  const csv = `date;amount;text\n${today};-2.50;Bank fees ${today.slice(0, 7)}\n${today};100.00;Transfer from savings\n`;
  const statement: Reply<'invoicing.bank.import_statement'>['statement'] = {
    id: 1,
    journal: 'Bank',
    iban,
    statement_id: 'CSV-0001',
    sequence: null,
    format: 'csv',
    currency: 'EUR',
    opening_balance: 0,
    closing_balance: 97.5,
    statement_date: today,
    line_count: 2,
    created_at: `${today}T09:30:00`,
  };
  const common = {
    statement: 1,
    currency: 'EUR',
    booking_date: today,
    value_date: null,
    bank_reference: null,
    end_to_end_id: null,
    structured_reference: null,
    counterparty_name: null,
    counterparty_iban: null,
    payment_id: null,
    journal_entry_id: null,
  };
  const fee = { ...common, id: 1, amount: -2.5, remittance_text: `Bank fees ${today.slice(0, 7)}`, status: 'suggested' as const };
  const transfer = { ...common, id: 2, amount: 100, remittance_text: 'Transfer from savings', status: 'unmatched' as const };
  const rule = { id: 1, name: 'Bank fees', match_text: 'bank fees', match_iban: null, partner: null, account: '6800 Bank Charges' };
  const page = { page_number: 1, page_size: 25, total_items: 2, total_pages: 1, has_next: false, has_previous: false };
  return [
    step(
      'invoicing.bank.settings',
      { ...writer, action: 'settings', bank_autoreconcile: true },
      { message: 'Bank settings saved', settings: { bank_autoreconcile: true } },
    ),
    step(
      'invoicing.bank.rules',
      { ...writer, action: 'rules', rule_action: 'create', name: 'Bank fees', match_text: 'bank fees', account: '6800 Bank Charges' },
      { message: 'Rule created', rules: [rule] },
    ),
    step(
      'invoicing.bank.import_statement',
      {
        ...writer,
        action: 'import_statement',
        format: 'csv',
        journal: iban,
        statement_id: 'CSV-0001',
        mapping: { date: 'date', amount: 'amount', text: 'text', delimiter: ';' },
        content_base64: base64Of(csv),
      },
      {
        message: 'Statement CSV-0001 imported: 2 line(s), 0 reconciled, 1 suggested, 1 unmatched',
        statement,
        lines: 2,
        duplicate_lines: 0,
        reconciled: 0,
        suggested: 1,
        unmatched: 1,
      },
    ),
    step(
      'invoicing.bank.statements',
      { ...reader, action: 'statements' },
      { message: 'Statements retrieved successfully', statements: [statement], pagination: { ...page, total_items: 1 } },
    ),
    step(
      'invoicing.bank.lines',
      { ...reader, action: 'lines', statement: 1 },
      { message: 'Lines retrieved successfully', lines: [fee, transfer], pagination: page },
    ),
    step(
      'invoicing.bank.suggest',
      { ...reader, action: 'suggest', line_id: 1 },
      {
        message: '1 candidate(s) found',
        line: fee,
        candidates: [
          {
            invoice_id: null,
            invoicenumber: null,
            partner: null,
            account: '6800 Bank Charges',
            amount_due: null,
            score: 20,
            reasons: ['rule'],
          },
        ],
      },
    ),
    step(
      'invoicing.bank.reconcile',
      { ...writer, action: 'reconcile', line_id: 1, account: '6800 Bank Charges' },
      { message: 'Bank line 1 reconciled', line: { ...fee, status: 'reconciled', journal_entry_id: 8 } },
    ),
    step(
      'invoicing.bank.unreconcile',
      { ...writer, action: 'unreconcile', line_id: 1 },
      { message: 'Bank line 1 is open again', line: { ...fee, status: 'unmatched' } },
    ),
    step(
      'invoicing.bank.payment_file',
      { ...writer, action: 'payment_file', due_by: today },
      { message: `No open EUR vendor bill is due by ${today} outside a payment file`, payment_file: null, bills: [], content_base64: null },
    ),
    step(
      'invoicing.bank.ignore',
      { ...writer, action: 'ignore', line_id: 2 },
      { message: 'Bank line 2 ignored', line: { ...transfer, status: 'ignored' } },
    ),
  ];
}
