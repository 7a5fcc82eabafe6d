import { sales } from '@bo/contracts';

export type QuotationStatus = sales.QuotationStatus;
/** What actions store; `expired` is only ever derived. */
export type StoredStatus = Exclude<QuotationStatus, 'expired'>;

/**
 * docs/design.md quotation moves: draft <-> sent -> accepted by edit; convert from draft, sent or
 * accepted; cancel from anything not converted (or already cancelled); draft and sent expire once
 * valid_until has passed. Lines can be added while draft or sent.
 */
const EDIT_MOVES: Record<QuotationStatus, readonly QuotationStatus[]> = {
  draft: ['sent'],
  sent: ['draft', 'accepted'],
  accepted: [],
  converted: [],
  cancelled: [],
  expired: [],
};

const EXPIRING: readonly QuotationStatus[] = ['draft', 'sent'];

/** A quotation is valid through its valid_until day and expires the day after (dates are UTC). */
export function isPastValidity(validUntil: string, today: string): boolean {
  return validUntil < today;
}

export function effectiveStatus(stored: StoredStatus, validUntil: string, today: string): QuotationStatus {
  return EXPIRING.includes(stored) && isPastValidity(validUntil, today) ? 'expired' : stored;
}

/** `untilConversionEnds`: the refusal lasts only while a conversion is unfinished (a retry may be answered differently). */
export type Verdict = { ok: true } | { ok: false; message: string; untilConversionEnds?: true };

const ok: Verdict = { ok: true };
const refuse = (message: string): Verdict => ({ ok: false, message });

/** An edit asking for `to`; asking for the current status changes nothing and is allowed where edits are. */
export function checkStatusMove(from: QuotationStatus, to: QuotationStatus): Verdict {
  if (from === to && canEditHeader(from)) return ok;
  if (EDIT_MOVES[from].includes(to)) return ok;
  const allowed = EDIT_MOVES[from];
  const hint = allowed.length ? `; from ${from} it can move to ${allowed.join(' or ')}` : '';
  const how =
    to === 'converted'
      ? ' (use convert_to_invoice)'
      : to === 'cancelled'
        ? ' (use cancel_quotation)'
        : to === 'expired'
          ? ' (quotations expire by themselves after valid_until)'
          : '';
  return refuse(`Cannot move a quotation in status ${from} to ${to}${how}${hint}`);
}

/** Header fields (number, validity, comments, reference) stay editable until the quotation is closed. */
export function canEditHeader(status: QuotationStatus): boolean {
  return status === 'draft' || status === 'sent' || status === 'accepted';
}

export function checkHeaderEdit(status: QuotationStatus, conversionUnfinished = false): Verdict {
  if (!canEditHeader(status)) return refuse(`Cannot edit a quotation in status ${status}`);
  return conversionUnfinished ? unfinished('edit', status) : ok;
}

/**
 * While a conversion is unfinished the quotation changes only by that conversion ending. Invoicing
 * may already have made the invoice from the quotation as it stood (lines, totals, number,
 * reference, comments), and the conversion completes with that invoice, so a change meanwhile would
 * be on the quotation but not on its invoice; a cancel would leave that invoice behind.
 */
function unfinished(action: string, status: QuotationStatus): Verdict {
  return {
    ok: false,
    message: `Cannot ${action} a quotation in status ${status} whose conversion to an invoice is unfinished (the invoice may already exist with the quotation as it is); the conversion will complete, on a retry or by itself shortly`,
    untilConversionEnds: true,
  };
}

/** Lines go on draft or sent quotations, and not while a conversion is unfinished. */
export function checkAddLine(status: QuotationStatus, conversionUnfinished = false): Verdict {
  if (status !== 'draft' && status !== 'sent')
    return refuse(`Cannot add lines to a quotation in status ${status}; only draft or sent quotations take lines`);
  return conversionUnfinished ? unfinished('add lines to', status) : ok;
}

export function checkCancel(status: QuotationStatus, conversionUnfinished = false): Verdict {
  if (status === 'converted')
    return refuse('Cannot cancel a quotation in status converted: it has become an invoice; cancel the invoice instead');
  if (status === 'cancelled') return refuse('Cannot cancel a quotation in status cancelled: it is already cancelled');
  return conversionUnfinished ? unfinished('cancel', status) : ok;
}

export function checkConvert(status: QuotationStatus): Verdict {
  return status === 'draft' || status === 'sent' || status === 'accepted'
    ? ok
    : refuse(`Cannot convert a quotation in status ${status}; only draft, sent or accepted quotations can be converted`);
}
