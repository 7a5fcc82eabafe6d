import { sales } from '@bo/contracts';
import { dec, formatDateTime, toNumber, type VatCategory } from '@bo/kernel';
import {
  AppError,
  exactJson,
  recordEvent,
  statementEvent,
  storeWithCommit,
  type BaseConfig,
  type Call,
  type Knex,
  type Logger,
  type OneStatementWrite,
  type StorePart,
} from '@bo/runtime';
import { findQuotation } from '../quotation/quotation.repository';
import { CONVERTIBLE } from '../quotation/quotation-rules';
import type { LineRow, QuotationRow } from '../quotation/quotation.record';
import { invoiceForSource, type SourceInvoice, type SourceInvoiceRequest } from './invoicing-client';
import { answerConverted, convertedReply, type ConvertReply, type Driver, type Freeze } from './decide-claim';

/**
 * The conversion saga (docs/architecture.md, "Sagas"): a quotation of sales becomes
 * an invoice of invoicing, in steps, none holding a transaction while invoicing is asked:
 *
 * 1. claim (a short transaction under the quotation's row lock): the quotation is frozen
 *    (`conversion_attempted_at`, with what was asked in `convert_key`, `convert_invoicetype`,
 *    `convert_user`), and this attempt takes a lease (`conversion_lease_until`) and a number
 *    (`conversion_attempts`);
 * 2. ask invoicing for the quotation's invoice, with no transaction open. Invoicing makes at most one
 *    invoice per quotation and answers it again on a repeat, so asking again is always safe;
 * 3. complete (a short transaction under the lock): converted, the invoice, the event and, for a
 *    client's convert, the recorded reply commit together.
 *
 * Frozen, the quotation takes no change, so whatever invoicing made from it still matches it. When
 * invoicing refuses (4xx) nothing was made and the quotation is unfrozen (the compensation); when
 * the outcome is unknown it stays frozen, and a retry or the recovery task (conversion-recovery.ts)
 * completes it with the same invoice. The request handler (convert-quotation.handler.ts: steps 1 and
 * 2 are its gather, step 3 its apply) and the recovery task both go through this module.
 */

type InvoiceType = SourceInvoiceRequest['invoicetype'];

export interface ConversionDeps {
  db: Knex;
  config: BaseConfig;
  log: Logger;
}

/** An attempt that claimed the conversion: the quotation as frozen, and what invoicing is asked (froze, earlierSettled: decide-claim.ts Freeze). */
export interface Attempt extends Pick<Freeze, 'froze' | 'earlierSettled'> {
  quotation: QuotationRow;
  /** Its number: it changes the row after the call only if no other attempt began since. */
  number: number;
  request: SourceInvoiceRequest;
  driver: Driver;
}

/**
 * How long an attempt holds the conversion (it gives up on invoicing well within this), and how long
 * after the last attempt ended the recovery task takes over: a few RPC timeouts, so it does not
 * race a client that is about to retry.
 */
export function conversionTiming(config: Pick<BaseConfig, 'RPC_TIMEOUT_MS'>): { leaseMs: number; staleMs: number } {
  return { leaseMs: config.RPC_TIMEOUT_MS, staleMs: 3 * config.RPC_TIMEOUT_MS };
}

/** The quotation's lines in id order as exact JSON (numerics as their text), beside its row in a RETURNING clause. */
const FROZEN_LINES = `coalesce((select jsonb_agg(${exactJson('l', ['id', 'org_id', 'quotation_id'])} order by l.id)
                               from quotation_lines l where l.quotation_id = quotations.id), '[]') as frozen_lines`;

/**
 * Step 1 stored, inside the caller's transaction that locked `q`: the attempt `freeze` decided
 * (decide-claim.ts) is taken, and the quotation frozen if it was open; answers the lines with it.
 * With `read` (an optimistic claim on an unlocked read, `q` read with that xmin), it changes the
 * quotation only while it is still that row, and answers undefined when it was not: every change of
 * a quotation or its lines updates its row.
 */
export async function claimAttempt(
  db: Knex,
  q: QuotationRow,
  freeze: Freeze,
  driver: Driver,
  config: BaseConfig,
  read?: string,
): Promise<Attempt | undefined> {
  type Frozen = QuotationRow & { frozen_lines: LineRow[] };
  const { rows } = await db.raw<{ rows: Frozen[] }>(
    `update quotations set conversion_attempted_at = coalesce(conversion_attempted_at, now()), convert_key = ?, convert_invoicetype = ?,
       convert_user = ?, conversion_attempts = ?, conversion_lease_until = now() + make_interval(secs => ?::float8)
     where id = ?${read !== undefined ? ' and xmin::text = ?' : ''}
     returning *, ${FROZEN_LINES}`,
    [
      freeze.convert_key,
      freeze.convert_invoicetype,
      freeze.convert_user,
      freeze.conversion_attempts,
      conversionTiming(config).leaseMs / 1000,
      q.id,
      ...(read !== undefined ? [read] : []),
    ],
  );
  // The lines come back with the frozen row: the quotation's lock is held, and every change of its lines takes it first.
  const row = rows[0];
  if (!row) return undefined;
  const { frozen_lines: lines, ...frozen } = row;
  const request = sourceRequest(frozen.org_id, driver.actor ?? undefined, frozen, lines, freeze.convert_invoicetype);
  const { froze, earlierSettled } = freeze;
  return { quotation: frozen, froze, earlierSettled, number: frozen.conversion_attempts, request, driver };
}

/**
 * Step 2 for a claimed attempt: the invoice invoicing made for the quotation. Otherwise the attempt
 * ends (unfrozen when nothing can have been made, released when the outcome is unknown) and this
 * throws invoicing's refusal, or 503/504 `outcome_unknown` while the conversion is pending.
 */
export async function askInvoicing(deps: ConversionDeps, call: Call, attempt: Attempt): Promise<SourceInvoice> {
  const { quotation: q } = attempt;
  const log = deps.log.child({ quotation_id: q.id, attempt: attempt.number });
  try {
    const outcome = await invoiceForSource(call, deps.config, attempt.request, (q.conversion_lease_until as Date).getTime());
    if (outcome.kind === 'refused') {
      // Invoicing answers an existing invoice before any check that could refuse, so none exists —
      // unless an earlier attempt is still inside invoicing, or another began since: then the
      // refusal is not the conversion's answer, and the quotation stays frozen for a retry or recovery.
      if (attempt.earlierSettled && (await endAttempt(deps, attempt, 'unfreeze'))) throw outcome.error;
      await endAttempt(deps, attempt, 'release');
      throw pending(
        q,
        503,
        `invoicing refused this attempt (${outcome.error.message}) while another attempt may still be making the invoice`,
      );
    }
    if (outcome.kind === 'not_sent') {
      // This request made nothing; an earlier attempt with an unknown outcome still may have.
      await endAttempt(deps, attempt, attempt.froze ? 'unfreeze' : 'release');
      if (attempt.froze)
        throw new AppError(
          503,
          'service_unavailable',
          `The invoicing service is unavailable; quotation ${q.quotation_number} is unchanged, retry later`,
        );
      throw pending(q, 503, outcome.reason);
    }
    if (outcome.kind === 'unknown') {
      await endAttempt(deps, attempt, 'release');
      throw pending(q, outcome.status, outcome.reason);
    }
    return outcome.invoice;
  } catch (err) {
    if (err instanceof AppError) throw err;
    log.error({ err }, 'conversion: invoicing answered something unreadable; the conversion stays pending');
    await endAttempt(deps, attempt, 'release');
    throw pending(q, 503, 'the answer of the invoicing service could not be read');
  }
}

/**
 * Step 3, in the caller's transaction (a convert's: the runtime records its reply in it): converted,
 * with the invoice and the event. The quotation is locked by a statement of its own, then its update,
 * the event's outbox row and the recorded reply go as the one statement that commits.
 */
export async function complete(trx: Knex.Transaction, attempt: Attempt, invoice: SourceInvoice): Promise<ConvertReply> {
  const { driver } = attempt;
  const q = await findQuotation(trx, attempt.quotation.org_id, attempt.quotation.id, { lock: true });
  if (q.status === 'converted') return answerConverted(q, driver);
  // Frozen, it cannot have been cancelled; a quotation holding an invoice must never be.
  if (!CONVERTIBLE.includes(q.status)) throw new Error(`quotation ${q.id} is ${q.status}, yet invoicing made invoice ${invoice.id} for it`);
  const completion = completionOf(q, driver, invoice);
  // Nothing reads the quotation after this: its update goes with the statement that commits.
  await storeWithCommit(trx, [completion.update]);
  await recordEvent(trx, sales.quotationConverted, q.org_id, completion.event);
  return completion.reply;
}

/**
 * Step 3 as one statement (a convert's `alone`), on the quotation as the attempt froze it, which no
 * write changes but a conversion's: converted only while no other attempt began since and none
 * completed it (`expects`); otherwise nothing stays and `complete` runs under the lock.
 */
export function completionAlone(attempt: Attempt, invoice: SourceInvoice): OneStatementWrite {
  const q = attempt.quotation;
  const completion = completionOf(q, attempt.driver, invoice, { attempt: attempt.number });
  return {
    parts: [completion.update],
    expects: '(select count(*) from store1) = 1',
    events: [statementEvent(sales.quotationConverted, q.org_id, completion.event)],
    reply: completion.reply,
  };
}

/** The quotation's update to converted (with `guard`: only while it is at that attempt, and convertible), its event and the reply. */
function completionOf(q: QuotationRow, driver: Driver, invoice: SourceInvoice, guard?: { attempt: number }) {
  const view = invoiceView(invoice);
  const convertedAt = new Date();
  const update: StorePart = {
    sql: `update quotations
             set status = 'converted', invoice_id = ?, invoicenumber = ?, invoicetype = ?, converted_at = ?, converted_invoice = ?,
                 conversion_lease_until = now(), updated_by = ?, updated_at = now()
           where id = ?${guard ? ' and conversion_attempts = ? and status = any(?::text[]) returning id' : ''}`,
    bindings: [
      view.id,
      view.invoicenumber,
      view.invoicetype,
      convertedAt,
      JSON.stringify(view),
      driver.actor,
      q.id,
      ...(guard ? [guard.attempt, [...CONVERTIBLE]] : []),
    ],
  };
  const event = {
    quotation_id: q.id,
    quotation_number: q.quotation_number,
    quotation_type: q.quotation_type,
    invoice_id: view.id,
    invoicenumber: view.invoicenumber,
    invoicetype: view.invoicetype,
    partner_id: q.partner_id,
    subtotal: toNumber(q.subtotal),
    tax_amount: toNumber(q.tax_amount),
    quotation_total: toNumber(q.total),
    currency: q.currency,
    converted_at: formatDateTime(convertedAt) as string,
  } satisfies sales.QuotationConvertedData;
  return { update, event, reply: convertedReply(q, view) };
}

/**
 * Step 3 failed for no refusal of its own (an outage, a bug) after invoicing made the invoice: the
 * attempt is released, and the conversion stays pending (frozen) for a retry or the recovery task.
 * Throws 503 `outcome_unknown`.
 */
export async function completionFailed(
  deps: Pick<ConversionDeps, 'db' | 'log'>,
  attempt: Attempt,
  invoice: SourceInvoice,
  err: unknown,
): Promise<never> {
  deps.log.error(
    { err, quotation_id: attempt.quotation.id, invoice_id: invoice.id },
    'conversion: invoicing made the invoice but the quotation could not be marked converted; it stays pending',
  );
  await endAttempt(deps, attempt, 'release');
  throw pending(attempt.quotation, 503, 'its completion could not be recorded');
}

/**
 * Ends an attempt that made no invoice (`unfreeze`: the quotation is open again) or whose outcome is
 * unknown (`release`: still frozen, but free for a retry at once). Only if no attempt began since,
 * and best effort: a lease that was not released runs out, a quotation left frozen is resumed.
 * Answers whether it changed the quotation.
 */
async function endAttempt(deps: Pick<ConversionDeps, 'db' | 'log'>, attempt: Attempt, how: 'unfreeze' | 'release'): Promise<boolean> {
  const changes =
    how === 'unfreeze'
      ? { conversion_attempted_at: null, convert_key: null, convert_invoicetype: null, convert_user: null, conversion_lease_until: null }
      : { conversion_lease_until: deps.db.fn.now() };
  const changed = await deps
    .db('quotations')
    .where({ id: attempt.quotation.id, conversion_attempts: attempt.number })
    .whereIn('status', CONVERTIBLE)
    .update(changes)
    .catch((err: unknown) => {
      deps.log.warn({ err, quotation_id: attempt.quotation.id, how }, 'conversion: could not end the attempt; it ends by itself');
      return 0;
    });
  return changed > 0;
}

function pending(q: Pick<QuotationRow, 'quotation_number'>, status: 503 | 504, reason: string): AppError {
  return new AppError(
    status,
    'outcome_unknown',
    `The conversion of quotation ${q.quotation_number} to an invoice is pending: ${reason}, so the invoice may or may not exist yet. ` +
      'Retrying is safe: it completes this conversion with the same invoice, never a second one; the conversion also completes by itself shortly',
  );
}

const plain = (v: string) => dec(v).toFixed();

/** The draft invoice of the quotation: its partner, lines and totals, pointing back at it. */
export function sourceRequest(
  orgId: number,
  userId: string | undefined,
  q: QuotationRow,
  lines: LineRow[],
  invoicetype: InvoiceType,
): SourceInvoiceRequest {
  return {
    org_id: String(orgId),
    userid: userId,
    invoicetype,
    partner: q.partner_id,
    // No invoicedatetime: invoicing dates the invoice now, in the organization's time zone.
    invoicestatus: 'draft',
    comments: q.comments ?? undefined,
    invoicereference: q.quotation_reference || q.quotation_number,
    // Accepted by invoicing for compatibility and recomputed there; in cents, as the field takes them.
    subtotal: dec(q.subtotal).toFixed(2),
    tax_amount: dec(q.tax_amount).toFixed(2),
    invoicetotal: dec(q.total).toFixed(2),
    sourcetype: 'quotation',
    sourceid: String(q.id),
    sourcenumber: q.quotation_number,
    // The invoice bills in the quotation's currency, the one the customer accepted.
    currency: q.currency ?? undefined,
    exchange_rate: q.exchange_rate === null ? undefined : plain(q.exchange_rate),
    // Carried as asked: invoicing computes them again, with the organization's policy.
    allowances_charges: q.allowances_charges.map((a) => ({
      charge: a.charge,
      amount: a.amount === null ? undefined : plain(a.amount),
      percent: a.percent === null ? undefined : plain(a.percent),
      base_amount: a.base_amount === null ? undefined : plain(a.base_amount),
      reason: a.reason ?? undefined,
      reason_code: a.reason_code ?? undefined,
      tax_category: (a.tax_category ?? undefined) as VatCategory | undefined,
      tax_rate: plain(a.tax_rate),
      tax_exemption_reason: a.tax_exemption_reason ?? undefined,
      tax_exemption_code: a.tax_exemption_code ?? undefined,
      reverse_charge_rate: a.reverse_charge_rate === null ? undefined : plain(a.reverse_charge_rate),
    })),
    line_items: lines.map((l) => ({
      product_id: l.product_id,
      variant_id: l.variant_id ?? undefined,
      location_id: l.location_id ?? undefined,
      product_name: l.product_name ?? undefined,
      description: l.description ?? undefined,
      // What the customer accepted: the invoice keeps it whatever the catalog says now.
      snapshot: { product_name: l.product_name, description: l.description, sku: l.sku, uom: l.uom },
      quantity: plain(l.quantity),
      price: plain(l.price),
      discount: plain(l.discount),
      tax_rate: plain(l.tax_rate),
      tax_included: l.tax_included,
      tax_category: l.tax_category as VatCategory,
      tax_exemption_reason: l.tax_exemption_reason ?? undefined,
      tax_exemption_code: l.tax_exemption_code ?? undefined,
      reverse_charge_rate: l.reverse_charge_rate ? plain(l.reverse_charge_rate) : undefined,
    })),
  };
}

function invoiceView(invoice: SourceInvoice): ConvertReply['invoice'] {
  return {
    id: invoice.id,
    orgid: invoice.orgid,
    invoicenumber: invoice.invoicenumber,
    invoicetype: invoice.invoicetype,
    partner: String(invoice.partner),
    invoicestatus: invoice.invoicestatus,
    subtotal: invoice.subtotal,
    tax_amount: invoice.tax_amount,
    invoicetotal: invoice.invoicetotal,
  };
}
