import type { invoicing } from '@bo/contracts';
import { bankRefusals } from './bank-refusals';
import { lineRecord, type ActiveReconciliation, type LineLoad, type LineRow } from './bank.repository';

export type { ActiveReconciliation, LineLoad } from './bank.repository';

/** A line's status change, as stored, and the line as answered. */
export interface LineStatusPlan {
  line: LineRow;
  reply: { message: string; line: invoicing.BankLineRecord };
}

/**
 * A line set aside (pure): one the organization does not have is not found, a reconciled one is
 * refused (unreconcile it first); any other is `ignored`, nothing posted.
 */
export function decideIgnore(load: LineLoad | undefined, lineId: number): LineStatusPlan {
  if (!load) throw bankRefusals.bankLineNotFound(lineId);
  if (load.line.status === 'reconciled') throw bankRefusals.reconciledLineIgnored(load.line.id);
  const line: LineRow = { ...load.line, status: 'ignored' };
  return { line, reply: { message: `Bank line ${line.id} ignored`, line: lineRecord(line, load.reconciliation ?? undefined) } };
}

/**
 * A line opened again (pure): an ignored line is `unmatched` at once (`reopen`); a reconciled one
 * has its reconciliation undone (`undo`: the payment it made voided, its posting reversed), then is
 * `unmatched` too, with no reconciliation to show. One the organization does not have is not found;
 * one neither ignored nor reconciled (with its reconciliation) is refused.
 */
export function decideUnreconcile(
  load: LineLoad | undefined,
  lineId: number,
): (LineStatusPlan & { kind: 'reopen' }) | (LineStatusPlan & { kind: 'undo'; reconciliation: ActiveReconciliation }) {
  if (!load) throw bankRefusals.bankLineNotFound(lineId);
  const line: LineRow = { ...load.line, status: 'unmatched' };
  const reply = { message: `Bank line ${line.id} is open again`, line: lineRecord(line, undefined) };
  if (load.line.status === 'ignored') return { kind: 'reopen', line, reply };
  if (load.line.status !== 'reconciled' || !load.reconciliation) throw bankRefusals.lineNotReconciled(line.id);
  return { kind: 'undo', line, reconciliation: load.reconciliation, reply };
}
