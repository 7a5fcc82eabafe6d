import { invoicing, sales, type RpcReply } from '@bo/contracts';
import { AppError, BusError, downstreamTimeoutMs, type BaseConfig, type Bus, type RequestMeta } from '@bo/runtime';

export type SourceInvoice = sales.SourceInvoice;
export type SourceInvoiceRequest = sales.SourceInvoiceRequest;

/**
 * What became of a request for the source's invoice, as far as sales can know:
 * - `made`: invoicing answered the invoice (made now, or by an earlier request for this source);
 * - `refused`: invoicing answered 4xx, so there is no invoice for the source (it answers an existing
 *   one before any check could refuse);
 * - `not_sent`: the request never left (no route, broker unreachable): this request made nothing;
 * - `unknown`: no answer in time, connection lost, or a 5xx: the invoice may or may not exist.
 */
export type InvoicingOutcome =
  | { kind: 'made'; invoice: SourceInvoice }
  | { kind: 'refused'; error: AppError }
  | { kind: 'not_sent'; reason: string }
  | { kind: 'unknown'; status: 503 | 504; reason: string };

/**
 * Asks invoicing for the draft invoice of this source. The operation is idempotent per
 * (sourcetype, sourceid): a repeat answers the invoice made the first time. It is sent without an
 * operation key: the source is its key, and each attempt's request differs (its date).
 *
 * The request carries `commit_before`: when this caller stops waiting, and never after `notAfter`
 * (the attempt's lease). Invoicing commits the invoice before it or never, so once it has passed
 * (with a margin for clocks) this request can no longer make an invoice, however slow invoicing is.
 */
export async function invoiceForSource(
  deps: { bus: Bus; config: BaseConfig },
  meta: Omit<RequestMeta, 'operationKey'>,
  request: SourceInvoiceRequest,
  notAfter: number,
): Promise<InvoicingOutcome> {
  const timeoutMs = Math.min(downstreamTimeoutMs(deps.config), notAfter - Date.now());
  if (timeoutMs <= 0) return { kind: 'not_sent', reason: 'the attempt ran out of time before invoicing was asked' };
  let reply: RpcReply;
  try {
    reply = await deps.bus.request(
      invoicing.createInvoiceFromSource.name,
      { ...request, commit_before: Date.now() + timeoutMs },
      meta,
      timeoutMs,
    );
  } catch (err) {
    if (!(err instanceof BusError)) throw err;
    if (err.kind === 'unroutable' || err.kind === 'unavailable')
      return { kind: 'not_sent', reason: 'the invoicing service is unavailable' };
    if (err.kind === 'timeout') return { kind: 'unknown', status: 504, reason: 'the invoicing service did not answer in time' };
    return { kind: 'unknown', status: 503, reason: 'the connection to the invoicing service was lost before it answered' };
  }
  if (!reply.ok) {
    if (reply.status >= 500)
      return { kind: 'unknown', status: reply.status === 504 ? 504 : 503, reason: `the invoicing service failed (${reply.message})` };
    return {
      kind: 'refused',
      error: new AppError(reply.status, reply.code, `Invoicing refused the invoice: ${reply.message}`, reply.errors),
    };
  }
  const parsed = sales.sourceInvoiceAnswer.safeParse(reply.body);
  if (!parsed.success) throw new Error(`invoicing answered an unexpected body: ${parsed.error.message}`);
  return { kind: 'made', invoice: parsed.data.invoice };
}
