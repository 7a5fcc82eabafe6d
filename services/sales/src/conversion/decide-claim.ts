import type { ReplyOf, sales } from '@bo/contracts';
import { checkConvert } from '../quotation/quotation-status';
import { conversionUnfinished, enforce, statusOf } from '../quotation/quotation-rules';
import type { QuotationRow } from '../quotation/quotation.record';
import { conversionRefusals } from './conversion-refusals';

// Step 1 of a conversion (conversion.ts), decided: what a convert does with the quotation as it is
// read. Pure, so the rules read in one place and are specified in memory (decide-claim.unit.test.ts);
// the handler loads, decides here, and stores the claim (claimAttempt).

export type ConvertReply = ReplyOf<typeof sales.convertQuotation>;
type InvoiceType = sales.SourceInvoiceRequest['invoicetype'];

/** Who drives an attempt: a client's convert command, or the recovery task. */
export interface Driver {
  /** The command's operation key; none for the recovery task. */
  operationKey?: string;
  actor: string | null;
}

/** What the decision knows besides the quotation: the organization's today, and the clocks it weighs leases by. */
export interface ClaimClock {
  /** Today in the organization's time zone: a draft or sent quotation past its validity has expired. */
  today: string;
  /** Another attempt's lease is still running by the database's clock (read with the quotation). */
  leaseLive: boolean;
  /** Now, in ms, by this process's clock, and the RPC timeout: how long a request inside invoicing may still commit. */
  nowMs: number;
  rpcTimeoutMs: number;
}

/** The attempt a claim takes: the columns it sets on the quotation, and what they mean for the call that follows. */
export interface Freeze {
  /** This attempt freezes the quotation (it was open): `conversion_attempted_at` becomes now. */
  froze: boolean;
  /**
   * No earlier attempt can still make an invoice: this one froze the quotation, or the last one
   * ended more than an RPC timeout ago. Each request carries its `commit_before`, at most the
   * attempt's lease end and never later than its timeout after it was sent (before the attempt
   * ended), and invoicing commits before it or never, so a slow invoicing still inside an earlier
   * request cannot make the invoice after this attempt unfroze the quotation on a refusal.
   */
  earlierSettled: boolean;
  /** Only the attempt that froze it is remembered: a later one resumes the same conversion. */
  convert_key: string | null;
  convert_invoicetype: InvoiceType;
  convert_user: string | null;
  /** Its number: the row changes after the call only if no other attempt began since. */
  conversion_attempts: number;
}

/** A convert's decision: the answer of a conversion already made by this command, or the attempt to claim. Refusals throw. */
export type ClaimDecision = { answer: ConvertReply } | { claim: Freeze };

/**
 * - converted: the command that started the conversion gets its invoice (another attempt or the
 *   recovery task may have completed it); any other is refused;
 * - frozen and unfinished: resumed whatever the calendar says since (a quotation that expired while
 *   frozen may hold an invoice), unless another request's attempt holds it, or it was asked for
 *   another invoice type (both transient: they pass once that conversion ends);
 * - open: convertible in its status, and with lines.
 */
export function decideClaim(q: QuotationRow, clock: ClaimClock, invoicetype: InvoiceType, driver: Driver): ClaimDecision {
  if (q.status === 'converted') return { answer: answerConverted(q, driver) };
  if (conversionUnfinished(q)) {
    const ownKey = driver.operationKey !== undefined && driver.operationKey === q.convert_key;
    if (clock.leaseLive && !ownKey) throw conversionRefusals.heldByAnotherRequest(q.quotation_number).asTransient();
    if (q.convert_invoicetype !== null && q.convert_invoicetype !== invoicetype)
      throw conversionRefusals.otherInvoiceTypeUnderWay(q.quotation_number, q.convert_invoicetype).asTransient();
  } else {
    enforce(checkConvert(statusOf(q, clock.today)), q);
    if (q.line_count === 0) throw conversionRefusals.quotationWithoutLines(q.quotation_number);
  }
  return { claim: freezeOf(q, invoicetype, driver, clock) };
}

/** The attempt a claim takes on `q`, open or frozen: the recovery task takes it on a frozen one with no further check. */
export function freezeOf(
  q: QuotationRow,
  invoicetype: InvoiceType,
  driver: Driver,
  clock: Pick<ClaimClock, 'nowMs' | 'rpcTimeoutMs'>,
): Freeze {
  const froze = q.conversion_attempted_at === null;
  return {
    froze,
    earlierSettled: froze || q.conversion_lease_until === null || q.conversion_lease_until.getTime() < clock.nowMs - clock.rpcTimeoutMs,
    convert_key: froze ? (driver.operationKey ?? null) : q.convert_key,
    convert_invoicetype: q.convert_invoicetype ?? invoicetype,
    convert_user: froze ? driver.actor : (q.convert_user ?? driver.actor),
    conversion_attempts: q.conversion_attempts + 1,
  };
}

/**
 * A converted quotation: the request that started the conversion gets its answer (the conversion
 * may have been completed by another attempt or the recovery task); any other is refused.
 */
export function answerConverted(q: QuotationRow, driver: Driver): ConvertReply {
  if (driver.operationKey !== undefined && driver.operationKey === q.convert_key && q.converted_invoice)
    return convertedReply(q, q.converted_invoice);
  throw conversionRefusals.alreadyConverted(q.quotation_number, q.invoicenumber);
}

export function convertedReply(q: QuotationRow, invoice: ConvertReply['invoice']): ConvertReply {
  return { message: `Quotation ${q.quotation_number} converted to invoice ${invoice.invoicenumber}`, invoice };
}
