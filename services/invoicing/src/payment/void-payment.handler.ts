import { invoicing } from '@bo/contracts';
import { dec, toNumber } from '@bo/kernel';
import { handler, recordEvent, type ApplyContext } from '@bo/runtime';
import type { ReplyOf, RequestOf } from '@bo/contracts';
import { readSettings } from '@bo/billing';
import { datedBeforeRefusal } from '../domain/dating';
import { allocationDated, paymentDated } from './dated';
import { ledgerSide, valueOfShare, valueOfStep, voidLines } from '../domain/cash';
import { accountsFor, tradeMove } from '../domain/journal';
import type { InvoiceRow } from '../invoice/invoice.record';
import { assertAfterLockDate } from '../invoice/lock-date';
import { accountingPlaces } from './payment-rate';
import {
  activeAllocationsOf,
  bookedDocuments,
  findPayment,
  lockDocuments,
  markPaymentVoided,
  paymentRecords,
  postCashEntry,
  settle,
} from './payment.repository';
import { settledView } from './payment.record';
import { allocationEvents } from './payment.events';
import { paymentRefusals } from './payment-refusals';
import { paymentValue, settledShare } from './payment-values';

/**
 * Reverses a payment: its active allocations are voided (their documents owe again) and a reversal
 * entry mirrors what the payment's entries still stand for; nothing is deleted. A payment whose
 * credit was partly refunded, or one of whose documents was written off since, is refused: the
 * money or the loss those booked would be left without a cause.
 */
export const voidPaymentHandler = handler(invoicing.voidPayment, async (req, ctx) => voidPayment(ctx, req));

/** The void's write: shared with bank reconciliation, whose unreconcile voids the payment it made. */
export async function voidPayment(
  ctx: Pick<ApplyContext, 'db' | 'orgId'>,
  req: Omit<RequestOf<typeof invoicing.voidPayment>, 'org_id' | 'action'>,
): Promise<ReplyOf<typeof invoicing.voidPayment>> {
  const db = ctx.db;
  // Held first, before the payment's lock, as every posting takes it.
  const settings = await readSettings(db, ctx.orgId, { hold: true });
  const today = settings.today();
  const date = req.void_date ?? today;
  assertAfterLockDate(settings, date, 'void_date', 'a void');
  const payment = await findPayment(db, ctx.orgId, req.payment_id, { lock: true });
  if (payment.status === 'voided') throw paymentRefusals.paymentAlreadyVoided(payment.id);
  if (Number(payment.refunded) > 0) throw paymentRefusals.refundedPaymentVoided(payment.id, payment.refunded);
  const allocations = await activeAllocationsOf(db, payment.id);
  const early = datedBeforeRefusal('void_date', date, 'a void', [paymentDated(payment), ...allocations.map(allocationDated)]);
  if (early) throw paymentRefusals.datedBeforeEarlier(early);
  const documents = await lockDocuments(
    db,
    ctx.orgId,
    allocations.map((a) => a.invoice_id),
  );
  const writtenOff = [...documents.values()].filter((d) => d.invoicestatus === 'written_off');
  if (writtenOff.length)
    throw paymentRefusals.paymentSettlesWrittenOff(
      payment.id,
      writtenOff.map((d) => d.invoicenumber),
    );
  // What the payment still stands for, valued as it was booked: each document's clearing undone at the
  // document's worth (from what is settled now, back), the credit left at the payment's.
  const places = accountingPlaces(settings.taxPolicy.accounting_currency);
  const booked = await bookedDocuments(db, documents.values(), places);
  const shares = new Map([...documents.values()].map((d) => [d.id, settledShare(d)]));
  const parts = allocations.map((a) => {
    const doc = documents.get(a.invoice_id) as InvoiceRow;
    const to = shares.get(doc.id) as ReturnType<typeof settledShare>;
    const from = to.minus(dec(a.amount));
    shares.set(doc.id, from);
    return { account: accountsFor(doc.invoicetype, doc).trade, amount: valueOfStep(booked.get(doc.id)!, from, to) };
  });
  const worth = paymentValue(payment, places);
  const rest = dec(payment.accounting_amount).minus(valueOfShare(worth, payment.allocated));
  const lines = voidLines(payment.direction, payment.accounting_amount, payment.journal, parts, rest);
  const journalEntryId = await postCashEntry(
    db,
    {
      org_id: ctx.orgId,
      invoice_id: allocations.length === 1 ? (allocations[0]?.invoice_id ?? null) : null,
      payment_id: payment.id,
      kind: 'void',
      journalname: payment.journal,
      journaldate: date,
      reference: `Void PAY-${payment.id}`,
    },
    lines,
  );
  for (const a of allocations) await settle(db, documents.get(a.invoice_id) as InvoiceRow, `-${a.amount}`, documents);
  const row = await markPaymentVoided(
    db,
    payment.id,
    allocations.map((a) => a.id),
    { journalEntryId, reason: req.reason ?? null, date },
  );
  await recordEvent(db, invoicing.paymentVoided, ctx.orgId, {
    payment_id: payment.id,
    partner_id: payment.partner_id,
    direction: payment.direction,
    side: ledgerSide(payment.direction, allocations[0] ? documents.get(allocations[0].invoice_id)?.invoicetype : undefined),
    amount: toNumber(payment.amount),
    currency: payment.currency,
    void_date: date,
    journal_entry_id: journalEntryId,
    trade_delta: toNumber(tradeMove(lines)),
    allocations: allocationEvents(allocations, documents),
  });
  return {
    message: `Payment ${payment.id} voided`,
    payment: (await paymentRecords(db, [row]))[0] as invoicing.PaymentRecord,
    invoices: [...documents.values()].map((d) => settledView(d, today)),
  };
}
