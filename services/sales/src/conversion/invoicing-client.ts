import { invoicing, sales } from '@bo/contracts';
import { AppError, CallError, downstreamTimeoutMs, type BaseConfig, type Call } from '@bo/runtime';

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
 * operation key (as every call is): the source is its key, and each attempt's request differs (its date).
 *
 * The request carries `commit_before`: when this caller stops waiting, and never after `notAfter`
 * (the attempt's lease). Invoicing commits the invoice before it or never, so once it has passed
 * (with a margin for clocks) this request can no longer make an invoice, however slow invoicing is.
 */
export async function invoiceForSource(
  call: Call,
  config: Pick<BaseConfig, 'RPC_TIMEOUT_MS'>,
  request: SourceInvoiceRequest,
  notAfter: number,
): Promise<InvoicingOutcome> {
  const timeoutMs = Math.min(downstreamTimeoutMs(config), notAfter - Date.now());
  if (timeoutMs <= 0) return { kind: 'not_sent', reason: 'the attempt ran out of time before invoicing was asked' };
  try {
    const answer = await call(
      invoicing.createInvoiceFromSource,
      { ...request, commit_before: Date.now() + timeoutMs },
      { timeoutMs, what: `the invoice of quotation ${request.sourceid}`, reads: sales.sourceInvoiceAnswer },
    );
    return { kind: 'made', invoice: answer.invoice };
  } catch (err) {
    if (!(err instanceof CallError)) throw err;
    switch (err.failure) {
      case 'refused':
        return { kind: 'refused', error: new AppError(err.status, err.code, `Invoicing refused the invoice: ${err.detail}`, err.errors) };
      case 'not_sent':
        return { kind: 'not_sent', reason: 'the invoicing service is unavailable' };
      case 'timeout':
        return { kind: 'unknown', status: 504, reason: 'the invoicing service did not answer in time' };
      case 'lost':
        return { kind: 'unknown', status: 503, reason: 'the connection to the invoicing service was lost before it answered' };
      case 'failed':
        return { kind: 'unknown', status: err.remoteStatus === 504 ? 504 : 503, reason: `the invoicing service failed (${err.detail})` };
    }
  }
}
