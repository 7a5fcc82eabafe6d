import { dec } from '@bo/kernel';
import type { JournalLine } from '../domain/journal';
import { decideVoid, type VoidPlan, type VoidState } from '../payment/decide-void';
import type { ActiveReconciliation, LineLoad } from './bank.repository';
import { decideUnreconcile, type LineStatusPlan } from './decide-line-status';
import { BANK_JOURNAL, lineDate, type ReconcileEntry } from './decide-reconcile';

/**
 * A line opened again, load → decide → store (unreconcile-line.handler.ts): what the load read
 * (undo.repository.ts, one statement) in; everything the unreconcile writes and answers out. An
 * ignored line is only `unmatched` again; a reconciled one has its reconciliation undone.
 */

/** A line of the entry a reconciliation posted, as the journal holds it (amounts as exact text). */
export interface PostedLine {
  account: string;
  debit: string;
  credit: string;
  label: string;
}

/** What opening a line again decides on, read in one statement. */
export interface UnreconcileLoad {
  /** The line and its active reconciliation; undefined: the organization has no such line. */
  line: LineLoad | undefined;
  /**
   * What voiding the payment the reconciliation made decides on (void.repository.ts's own load, read
   * in the same statement): its `payment` null when the reconciliation made none. Its `now`, the
   * load's time, is the time of the undo too.
   */
  void: VoidState;
  /** The lines of the entry the reconciliation posted itself (a posting to an account, a bank fee), in id order. */
  posted: readonly PostedLine[];
  /** The bills of a payment file the line paid (`paid`, by this line), by id. */
  bills: readonly number[];
  /** The reversal entry's id, drawn after the void's entry's; null when the reconciliation posted no entry of its own. */
  entryId: number | null;
}

/** An ignored line opened again: only its status changes. */
export type ReopenPlan = LineStatusPlan & { kind: 'reopen' };

/** A reconciliation undone: everything it writes. */
export interface UndoPlan extends LineStatusPlan {
  kind: 'undo';
  /** The reconciliation as it leaves it: undone at the load's time. */
  reconciliation: ActiveReconciliation & { undone_at: Date };
  /** The payment the reconciliation made, voided as the payments' own void decides it (decideVoid). */
  void?: VoidPlan;
  /** The reversal of the entry the reconciliation posted itself. */
  reversal?: ReconcileEntry;
  /** The bills the line paid, in payment again (their transfer was made). */
  bills: number[];
}

/** Why a voided payment of an unreconciled line was voided. */
export const unreconciledReason = (lineId: number) => `Bank line ${lineId} unreconciled`;

/**
 * A line opened again (pure). The line's own refusals first, as decideUnreconcile judges them (not
 * found, not reconciled); an ignored line is `reopen`. A reconciled one is `undo`, in the order the
 * effects were made: the payment the reconciliation made voided today, by the void's own rules and
 * refusals (decideVoid: the lock date, a payment already voided, refunded, or settling a document
 * written off since), a linked payment left as it is; the entry it posted reversed on the line's
 * day, each line's debit and credit swapped; the bills the line paid back in payment; the
 * reconciliation undone; the line `unmatched`, answered with no reconciliation.
 */
export function decideUndo(load: UnreconcileLoad, lineId: number, ctx: { orgId: number; instant: Date }): ReopenPlan | UndoPlan {
  const opened = decideUnreconcile(load.line, lineId);
  if (opened.kind === 'reopen') return opened;
  const { line, reconciliation: rec } = opened;
  const void_ =
    rec.made_payment && rec.payment_id !== null
      ? decideVoid(load.void, { payment_id: rec.payment_id, reason: unreconciledReason(line.id) }, ctx)
      : undefined;
  let reversal: ReconcileEntry | undefined;
  if (rec.journal_entry_id !== null) {
    if (load.entryId === null) throw new Error('a reversal is posted under the id its load drew');
    const lines: JournalLine[] = load.posted.map((p) => ({
      account: p.account,
      debit: dec(p.credit),
      credit: dec(p.debit),
      label: `Undo: ${p.label}`.slice(0, 100),
    }));
    reversal = {
      id: load.entryId,
      header: {
        org_id: ctx.orgId,
        invoice_id: null,
        payment_id: null,
        kind: 'bank',
        journalname: BANK_JOURNAL,
        journaldate: lineDate(line),
        reference: `Undo bank line ${line.id}`,
      },
      lines,
    };
  }
  return {
    ...opened,
    reconciliation: { ...rec, undone_at: load.void.now },
    ...(void_ ? { void: void_ } : {}),
    ...(reversal ? { reversal } : {}),
    bills: [...load.bills],
  };
}
