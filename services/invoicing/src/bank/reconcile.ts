import { dec, formatDate, type Dec } from '@bo/kernel';
import { type ApplyContext, type Knex } from '@bo/runtime';
import { cr, dr, DEFAULT_PAYMENT_JOURNAL, type JournalLine } from '../domain/journal';
import { accountingCurrency } from '../exchange-rate/exchange-rate.repository';
import { postEntry } from '../invoice/journal.repository';
import { recordPayment } from '../payment/create-payment.handler';
import { findPayment } from '../payment/payment.repository';
import { voidPayment } from '../payment/void-payment.handler';
import { bankRefusals } from './bank-refusals';
import type { LineRow, ReconciliationRow } from './bank.repository';
import { reopenPaidBills, settlePaidBills } from './payment-files';

/** The organization's bank account in the journal: payments made by hand and by reconciliation post to it. */
export const BANK_JOURNAL = DEFAULT_PAYMENT_JOURNAL;

export type ReconcileChoice =
  | {
      kind: 'allocations';
      allocations: { invoice_id: number; amount: string }[];
      partner: number;
      fee?: { amount: string; account: string };
    }
  | { kind: 'credit'; partner: number; fee?: { amount: string; account: string } }
  | { kind: 'payment'; payment_id: number }
  | { kind: 'account'; account: string };

type Ctx = Pick<ApplyContext, 'db' | 'orgId' | 'userId'>;

/**
 * The payment's amount for a line: the money the partner sent or was sent. Fees the bank took sit
 * between the two: on money in the line is the payment less the fee, on money out the payment plus it.
 */
export function paymentAmountOf(line: Dec, fee: Dec): Dec {
  return line.isNegative() ? line.abs().minus(fee) : line.abs().plus(fee);
}

async function postBankEntry(db: Knex.Transaction, orgId: number, line: LineRow, reference: string, lines: JournalLine[]): Promise<number> {
  return postEntry(
    db,
    {
      org_id: orgId,
      invoice_id: null,
      payment_id: null,
      kind: 'bank',
      journalname: BANK_JOURNAL,
      journaldate: formatDate(line.booking_date) ?? '',
      reference: reference.slice(0, 64),
    },
    lines,
  );
}

async function requireBookCurrency(db: Knex, orgId: number, line: LineRow, field: string): Promise<void> {
  const accounting = await accountingCurrency(db, orgId);
  if (accounting !== null && accounting !== line.currency)
    throw bankRefusals.lineNotInAccountingCurrency(line.id, line.currency, accounting, field);
}

/**
 * Reconciles one line, exactly once: the line is locked by the caller and must be open; one active
 * reconciliation per line is also held by a unique index. The payment is made through the same
 * write as `/invoicing/payments` (recordPayment) under an operation key of the reconciliation, so a
 * line's payment exists once however the request is retried.
 */
export async function reconcileLine(ctx: Ctx, line: LineRow, choice: ReconcileChoice): Promise<ReconciliationRow> {
  const db = ctx.db;
  if (line.status === 'reconciled') throw bankRefusals.lineAlreadyReconciled(line.id);
  if (line.status === 'ignored') throw bankRefusals.lineIgnored(line.id);
  const amount = dec(line.amount);
  const date = formatDate(line.booking_date) ?? '';
  const [rec] = (await db('bank_reconciliations').insert({ org_id: ctx.orgId, line_id: line.id }).returning('*')) as ReconciliationRow[];
  const update: Partial<ReconciliationRow> = {};
  if (choice.kind === 'allocations' || choice.kind === 'credit') {
    const fee = dec(choice.fee?.amount ?? 0);
    const paid = paymentAmountOf(amount, fee);
    if (paid.lte(0)) throw bankRefusals.feeLeavesNoPayment(fee.toFixed(), line.id);
    const reply = await recordPayment(
      { db, orgId: ctx.orgId, userId: ctx.userId, operationKey: `bank-reconciliation:${rec!.id}` },
      {
        partner: choice.partner,
        amount: paid.toFixed(),
        currency: line.currency,
        payment_date: date,
        method: 'bank_transfer',
        reference: (line.structured_reference ?? line.end_to_end_id ?? line.bank_reference ?? undefined)?.slice(0, 200),
        direction: amount.isNegative() ? 'out' : 'in',
        journal: BANK_JOURNAL,
        allocations: choice.kind === 'allocations' ? choice.allocations : undefined,
      },
      'at once',
    );
    update.payment_id = reply.payment.id;
    update.made_payment = true;
    // Vendor bills of a payment file this line paid in full leave payment (docs/bank.md "Paying vendors").
    if (choice.kind === 'allocations' && amount.isNegative())
      await settlePaidBills(
        db,
        ctx.orgId,
        line.id,
        choice.allocations.map((a) => a.invoice_id),
      );
    if (fee.gt(0) && choice.fee) {
      update.journal_entry_id = await postBankEntry(db, ctx.orgId, line, `Bank fee line ${line.id}`, [
        dr(choice.fee.account, fee, 'Bank fee'),
        cr(BANK_JOURNAL, fee, 'Bank fee'),
      ]);
    }
  } else if (choice.kind === 'payment') {
    const payment = await findPayment(db, ctx.orgId, choice.payment_id, { lock: true });
    const direction = amount.isNegative() ? 'out' : 'in';
    if (payment.status !== 'posted') throw bankRefusals.paymentNotPosted(payment.id, payment.status);
    if (payment.direction !== direction || !dec(payment.amount).eq(amount.abs()) || payment.currency !== line.currency)
      throw bankRefusals.paymentDoesNotMatchLine(payment.id, direction, amount.abs().toFixed(), line.currency);
    const taken = await db<ReconciliationRow>('bank_reconciliations').where({ payment_id: payment.id, status: 'active' }).first();
    if (taken) throw bankRefusals.paymentAlreadyReconciled(payment.id, String(taken.line_id));
    update.payment_id = payment.id;
  } else {
    await requireBookCurrency(db, ctx.orgId, line, 'account');
    const money = amount.abs();
    update.journal_entry_id = await postBankEntry(
      db,
      ctx.orgId,
      line,
      `Bank line ${line.id}`,
      amount.isNegative()
        ? [dr(choice.account, money, 'Bank line'), cr(BANK_JOURNAL, money, 'Bank line')]
        : [dr(BANK_JOURNAL, money, 'Bank line'), cr(choice.account, money, 'Bank line')],
    );
  }
  const [done] = (await db('bank_reconciliations').where({ id: rec!.id }).update(update).returning('*')) as ReconciliationRow[];
  await db('bank_lines').where({ id: line.id }).update({ status: 'reconciled' });
  return done!;
}

/**
 * Undoes a line's active reconciliation (decideUnreconcile's `undo`), the line locked by the caller:
 * voids the payment it made (a linked one stays), reverses its own posting, puts the bills it paid
 * back in payment, and opens the line again.
 */
export async function undoReconciliation(
  ctx: Ctx,
  line: LineRow,
  rec: Pick<ReconciliationRow, 'id' | 'payment_id' | 'made_payment' | 'journal_entry_id'>,
): Promise<void> {
  const db = ctx.db;
  if (rec.made_payment && rec.payment_id !== null) {
    await voidPayment(ctx, { payment_id: rec.payment_id, reason: `Bank line ${line.id} unreconciled` });
  }
  if (rec.journal_entry_id !== null) {
    const posted = (await db('journal_lines').where({ entry_id: rec.journal_entry_id }).orderBy('id')) as {
      account: string;
      debit: string;
      credit: string;
      label: string;
    }[];
    await postEntry(
      db,
      {
        org_id: ctx.orgId,
        invoice_id: null,
        payment_id: null,
        kind: 'bank',
        journalname: BANK_JOURNAL,
        journaldate: formatDate(line.booking_date) ?? '',
        reference: `Undo bank line ${line.id}`,
      },
      posted.map((p) => ({ account: p.account, debit: dec(p.credit), credit: dec(p.debit), label: `Undo: ${p.label}`.slice(0, 100) })),
    );
  }
  await reopenPaidBills(db, ctx.orgId, line.id);
  await db('bank_reconciliations').where({ id: rec.id }).update({ status: 'undone', undone_at: db.fn.now() });
  await db('bank_lines').where({ id: line.id }).update({ status: 'unmatched' });
}
