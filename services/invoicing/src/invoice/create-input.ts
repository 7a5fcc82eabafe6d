import type { invoicing, RequestOf } from '@bo/contracts';
import { parseDateTime } from '@bo/kernel';
import { allowancesFromRequest, type ResolvedLine } from '@bo/billing';
import { isCreditNote } from '../domain/credit-note';
import { lineTotalProblem } from '../domain/line-limits';
import { runDate } from '../domain/recurrence';
import type { NewInvoice } from './invoice.writer';
import { invoiceRefusals } from './invoice-refusals';

type CreateRequest = RequestOf<typeof invoicing.createInvoice> | RequestOf<typeof invoicing.createInvoiceFromSource>;

/** How a refusal names a field of a document's line: `line_items.2.product_id`. */
export const lineField = (index: number, field: string) => `line_items.${index}.${field}`;

export const RECURRING_FREQUENCY_REQUIRED = 'invalid recurring configuration: frequency is required';

/**
 * How far back a contract may start. The scheduler catches up every missed period, so a typo'd
 * start (1925 for 2025) on a daily contract would otherwise make tens of thousands of invoices.
 */
export const MAX_BACKDATED_DAYS = 366;

/**
 * Turns a create request, its lines checked against the catalog, into the new invoice's columns,
 * refusing what no field schema can see alone.
 */
export function newInvoiceFrom(req: CreateRequest, lines: readonly ResolvedLine[], userId: string | undefined, now: Date): NewInvoice {
  const invoicedatetime = req.invoicedatetime ? parseDateTime(req.invoicedatetime) : now;
  const invoiceDate = invoicedatetime.toISOString().slice(0, 10);
  if (req.invoicedue && req.invoicedue < invoiceDate) {
    throw invoiceRefusals.dueBeforeInvoiceDate(req.invoicedue, invoiceDate);
  }
  const tooLarge = lines.flatMap((line, i) => {
    const problem = lineTotalProblem(line);
    const field = `line_items.${i}.quantity`;
    return problem ? [{ field, message: `${field}: ${problem}` }] : [];
  });
  if (tooLarge.length) throw invoiceRefusals.lineTotalsTooLarge(tooLarge);
  const restock = 'restock' in req ? req.restock : undefined;
  if (restock === false && !isCreditNote(req.invoicetype)) {
    throw invoiceRefusals.restockOnlyOnCreditNote(req.invoicetype);
  }
  const values: NewInvoice = {
    invoicetype: req.invoicetype,
    partner_id: req.partner,
    invoicestatus: req.invoicestatus ?? 'draft',
    invoicenumber: req.invoicenumber,
    invoicedatetime,
    invoicedue: req.invoicedue ?? null,
    comments: req.comments ?? null,
    invoicereference: req.invoicereference ?? null,
    invoiceterms: req.invoiceterms ?? null,
    sourceid: req.sourceid ?? null,
    sourcenumber: req.sourcenumber ?? null,
    sourcetype: req.sourcetype ?? null,
    restock: restock ?? true,
    chartofaccounts: req.chartofaccounts ?? null,
    invoicejournal: req.invoicejournal ?? null,
    tradeaccount: req.tradeaccount ?? null,
    created_by: req.userid ?? userId ?? null,
    allowances_charges: allowancesFromRequest(req.allowances_charges),
    exchange_rate: req.exchange_rate ?? null,
    ...(req.currency ? { currency: req.currency } : {}),
  };
  const recurring = 'recurring' in req ? req.recurring : undefined;
  if (recurring?.enabled) {
    if (!recurring.frequency) throw invoiceRefusals.recurringFrequencyRequired(RECURRING_FREQUENCY_REQUIRED);
    const start = recurring.start_date ?? invoiceDate;
    const earliest = new Date(now.getTime() - MAX_BACKDATED_DAYS * 86_400_000).toISOString().slice(0, 10);
    if (start < earliest) {
      throw invoiceRefusals.recurringStartTooEarly(start, earliest);
    }
    // The parent invoice bills the first period (from start_date); the first child the one after,
    // so no period is billed twice.
    Object.assign(values, {
      recurring_enabled: true,
      recurring_frequency: recurring.frequency,
      recurring_start_date: start,
      recurring_next_run_date: runDate(start, recurring.frequency, 1),
      recurring_next_index: 1,
      recurring_occurrences: recurring.occurrences_count ?? 0,
      recurring_status: 'active',
    } satisfies Partial<NewInvoice>);
  }
  return values;
}
