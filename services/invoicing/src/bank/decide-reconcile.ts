import type { invoicing, RequestOf } from '@bo/contracts';
import { dec, formatDate, type Dec } from '@bo/kernel';
import { cr, dr, DEFAULT_PAYMENT_JOURNAL, type JournalLine } from '../domain/journal';
import type { EntryHeader } from '../invoice/journal.repository';
import { decideNewPayment, type NewPaymentPlan, type NewPaymentRequest, type NewPaymentState } from '../payment/decide-new-payment';
import { paymentRefusals } from '../payment/payment-refusals';
import { bankRefusals } from './bank-refusals';
import { lineRecord, type LineRow, type ReconciliationRow } from './bank.repository';

/**
 * A line reconciled by hand or by import, load → decide → store (reconcile-line.handler.ts): what the
 * load read (reconcile.repository.ts) in; the reconciliation, the line as it leaves it, the payment
 * made (create-payment's own decision, decideNewPayment), the posting, the bills paid and the reply out.
 */

/** The organization's bank account in the journal: payments made by hand and by reconciliation post to it. */
export const BANK_JOURNAL = DEFAULT_PAYMENT_JOURNAL;

/**
 * The payment's amount for a line: the money the partner sent or was sent. Fees the bank took sit
 * between the two: on money in the line is the payment less the fee, on money out the payment plus it.
 */
export function paymentAmountOf(line: Dec, fee: Dec): Dec {
  return line.isNegative() ? line.abs().minus(fee) : line.abs().plus(fee);
}

/** What a reconcile asks (the request, or import's reconcile of a line its references name). */
export type ReconcileAsked = Pick<
  RequestOf<typeof invoicing.reconcileBankLine>,
  'line_id' | 'allocations' | 'partner' | 'payment_id' | 'account' | 'fee' | 'fee_account'
>;

/**
 * How a line is reconciled: a payment of its money allocated to documents (`allocations`) or left as
 * the partner's credit (`credit`), a posted payment linked (`payment`), or a posting to an account.
 */
export type ReconcileWay = 'allocations' | 'credit' | 'payment' | 'account';

/** The payment a link names, as the link judges it, with the line an active reconciliation already links it to (null: none). */
export interface LinkedPayment {
  id: number;
  status: string;
  direction: string;
  amount: string;
  currency: string;
  reconciledWith: number | null;
}

/** What a reconcile decides on. */
export interface ReconcileLoad {
  /** The organization's line by the id asked; undefined: none. */
  line: LineRow | undefined;
  /** The organization's payment a link names; undefined: none (or no link asked). */
  payment: LinkedPayment | undefined;
  /** The organization's accounting currency (null: none set), which a posting to an account takes. */
  accountingCurrency: string | null;
  /** Drawn from their sequences: the reconciliation's id, and the id of the entry it posts (an account's posting, a fee), if any. */
  ids: { reconciliationId: number; entryId: number | null };
  /** For a payment made of the line's money: what create-payment's load read, for the line's currency, date and the documents asked. */
  newPayment?: NewPaymentState;
}

/** A journal entry a reconciliation posts itself (an account's posting, a bank fee), under the id its load drew. */
export interface ReconcileEntry {
  id: number;
  header: EntryHeader;
  lines: JournalLine[];
}

/** Everything a reconcile writes and answers. */
export interface ReconcilePlan {
  way: ReconcileWay;
  /** The line as it leaves it: reconciled. */
  line: LineRow;
  /** The active reconciliation it inserts. */
  reconciliation: Omit<ReconciliationRow, 'status'> & { org_id: number };
  /** The payment made of the line's money (allocations, credit), as create-payment decides it. */
  payment?: NewPaymentPlan;
  /** The entry it posts itself: the line to an account, or the bank's fee. */
  entry?: ReconcileEntry;
  /** Vendor bills of a payment file the line paid in full (money out): they leave payment, paid by the line. */
  paidBills: number[];
  reply: { message: string; line: invoicing.BankLineRecord };
}

/**
 * The way a request reconciles its line, judged on the request alone (before anything is read):
 * exactly one of allocations, partner (with no allocations), payment_id or account; a fee with its
 * account, and only with a payment made.
 */
export function reconcileWayOf(req: ReconcileAsked): ReconcileWay {
  const chosen = [
    req.allocations,
    req.partner !== undefined && !req.allocations ? req.partner : undefined,
    req.payment_id,
    req.account,
  ].filter((v) => v !== undefined);
  if (chosen.length !== 1) throw bankRefusals.oneReconcileChoiceRequired();
  if (req.fee !== undefined && !req.fee_account) throw bankRefusals.feeAccountRequired();
  if (req.fee !== undefined && (req.payment_id !== undefined || req.account !== undefined)) throw bankRefusals.feeWithoutPayment();
  if (req.allocations) return 'allocations';
  if (req.partner !== undefined) return 'credit';
  return req.payment_id !== undefined ? 'payment' : 'account';
}

/** Whether a reconcile of this way posts an entry of its own (drawn by the load): an account's posting, or a fee. */
export function postsEntry(way: ReconcileWay, req: ReconcileAsked): boolean {
  return way === 'account' || ((way === 'allocations' || way === 'credit') && req.fee !== undefined);
}

/** Whether a line can be reconciled: neither reconciled nor ignored. */
export function isOpenLine(line: Pick<LineRow, 'status'>): boolean {
  return line.status !== 'reconciled' && line.status !== 'ignored';
}

/**
 * A line reconciled, exactly once (pure). The refusals in their order: the request's way
 * (reconcileWayOf); the line found; allocations naming documents of the organization, of one
 * partner (the partner asked, else theirs); the line neither reconciled nor ignored. Then by way:
 * - `allocations`, `credit`: a payment of the line's money (paymentAmountOf: with the fee, which
 *   must leave something to pay) decided by create-payment's own rules (decideNewPayment) under an
 *   operation key of the reconciliation, so a line's payment exists once; the bills of a payment
 *   file a debit line paid in full leave payment; a fee is posted from the bank to its account.
 * - `payment`: the payment found, posted, of the line's direction, amount and currency, and linked
 *   to no other line.
 * - `account`: the line in the accounting currency, posted between the bank and the account.
 */
export function decideReconcile(
  req: ReconcileAsked,
  load: ReconcileLoad,
  ctx: { orgId: number; userId: string | null; instant: Date },
): ReconcilePlan {
  const way = reconcileWayOf(req);
  const line = load.line;
  if (!line) throw bankRefusals.bankLineNotFound(req.line_id);
  let partner = req.partner;
  if (way === 'allocations') {
    const partners = new Set([...newPaymentOf(load).documents.values()].map((d) => d.partner_id));
    partner ??= [...partners][0];
    if (partner === undefined) throw bankRefusals.allocationsOfNoDocument();
    if (partners.size > 1) throw bankRefusals.allocationsOfSeveralPartners();
  }
  if (line.status === 'reconciled') throw bankRefusals.lineAlreadyReconciled(line.id);
  if (line.status === 'ignored') throw bankRefusals.lineIgnored(line.id);
  const amount = dec(line.amount);
  const reconciliationId = load.ids.reconciliationId;
  const done = (
    kept: Pick<ReconcilePlan, 'payment' | 'entry' | 'paidBills'>,
    link: { payment_id: number | null; made_payment: boolean },
  ): ReconcilePlan => {
    const reconciled: LineRow = { ...line, status: 'reconciled' };
    const reconciliation = {
      id: reconciliationId,
      org_id: ctx.orgId,
      line_id: line.id,
      ...link,
      journal_entry_id: kept.entry?.id ?? null,
    };
    return {
      way,
      line: reconciled,
      reconciliation,
      ...kept,
      reply: { message: `Bank line ${line.id} reconciled`, line: lineRecord(reconciled, reconciliation) },
    };
  };

  if (way === 'allocations' || way === 'credit') {
    const fee = dec(req.fee ?? 0);
    const paid = paymentAmountOf(amount, fee);
    if (paid.lte(0)) throw bankRefusals.feeLeavesNoPayment(fee.toFixed(), line.id);
    const asked: NewPaymentRequest = {
      partner: partner!,
      amount: paid.toFixed(),
      currency: line.currency,
      payment_date: lineDate(line),
      method: 'bank_transfer',
      reference: (line.structured_reference ?? line.end_to_end_id ?? line.bank_reference ?? undefined)?.slice(0, 200),
      direction: amount.isNegative() ? 'out' : 'in',
      journal: BANK_JOURNAL,
      allocations: req.allocations?.map((a) => ({ invoice_id: a.invoice_id, amount: dec(a.amount).toFixed() })),
    };
    const payment = decideNewPayment(newPaymentOf(load), asked, {
      orgId: ctx.orgId,
      operationKey: `bank-reconciliation:${reconciliationId}`,
      userId: ctx.userId,
      instant: ctx.instant,
    });
    // Vendor bills of a payment file this line paid in full leave payment (docs/bank.md "Paying vendors").
    const paidBills =
      way === 'allocations' && amount.isNegative() ? payment.documents.filter((d) => d.invoicestatus === 'paid').map((d) => d.id) : [];
    const entry = fee.gt(0)
      ? bankEntry(line, entryIdOf(load), `Bank fee line ${line.id}`, [
          dr(req.fee_account!, fee, 'Bank fee'),
          cr(BANK_JOURNAL, fee, 'Bank fee'),
        ])
      : undefined;
    return done({ payment, entry, paidBills }, { payment_id: payment.ids.paymentId, made_payment: true });
  }

  if (way === 'payment') {
    const payment = load.payment;
    if (!payment) throw paymentRefusals.paymentNotFound(req.payment_id!);
    const direction = amount.isNegative() ? 'out' : 'in';
    if (payment.status !== 'posted') throw bankRefusals.paymentNotPosted(payment.id, payment.status);
    if (payment.direction !== direction || !dec(payment.amount).eq(amount.abs()) || payment.currency !== line.currency)
      throw bankRefusals.paymentDoesNotMatchLine(payment.id, direction, amount.abs().toFixed(), line.currency);
    if (payment.reconciledWith !== null) throw bankRefusals.paymentAlreadyReconciled(payment.id, String(payment.reconciledWith));
    return done({ paidBills: [] }, { payment_id: payment.id, made_payment: false });
  }

  const accounting = load.accountingCurrency;
  if (accounting !== null && accounting !== line.currency)
    throw bankRefusals.lineNotInAccountingCurrency(line.id, line.currency, accounting, 'account');
  const money = amount.abs();
  const account = req.account!;
  const entry = bankEntry(
    line,
    entryIdOf(load),
    `Bank line ${line.id}`,
    amount.isNegative()
      ? [dr(account, money, 'Bank line'), cr(BANK_JOURNAL, money, 'Bank line')]
      : [dr(BANK_JOURNAL, money, 'Bank line'), cr(account, money, 'Bank line')],
  );
  return done({ entry, paidBills: [] }, { payment_id: null, made_payment: false });
}

/** The line's booking day, the day its payment and postings take. */
export function lineDate(line: Pick<LineRow, 'booking_date'>): string {
  return formatDate(line.booking_date) ?? '';
}

function bankEntry(line: LineRow, id: number, reference: string, lines: JournalLine[]): ReconcileEntry {
  return {
    id,
    header: {
      org_id: line.org_id,
      invoice_id: null,
      payment_id: null,
      kind: 'bank',
      journalname: BANK_JOURNAL,
      journaldate: lineDate(line),
      reference: reference.slice(0, 64),
    },
    lines,
  };
}

function newPaymentOf(load: ReconcileLoad): NewPaymentState {
  if (!load.newPayment) throw new Error('a payment made of a bank line is decided on what its load read');
  return load.newPayment;
}

function entryIdOf(load: ReconcileLoad): number {
  if (load.ids.entryId === null) throw new Error('an entry a reconcile posts is posted under the id its load drew');
  return load.ids.entryId;
}
