import { step, type ExampleStep } from './scene';

/**
 * Reminders (docs/dunning.md): three levels and the statutory rate set, a dry run and the letters
 * sent. No invoice of the story is overdue today (they fall due in 14 days), so none gets a letter.
 */
export function dunningSteps(today: string, writer: { org_id: '1'; userid: '1' }, reader: { org_id: '1' }): ExampleStep[] {
  const levels = [
    { level: 1, days_after_due: 7, fee: 0, interest: false, text: 'A friendly reminder: the invoice below is past due.' },
    { level: 2, days_after_due: 21, fee: 5, interest: true, text: 'Second reminder, with a fee and statutory interest.' },
    { level: 3, days_after_due: 35, fee: 10, interest: true, text: 'Final notice before collection.' },
  ];
  return [
    step(
      'invoicing.dunning.levels',
      { ...writer, action: 'levels', levels: levels.map((l) => ({ ...l, fee: l.fee.toFixed(2) })), reference_rate: '4.5', points: '8' },
      { message: '3 reminder level(s) set', levels, reference_rate: 4.5, points: 8 },
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
  ];
}
