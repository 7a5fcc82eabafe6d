import type { invoicing, RequestOf } from '@bo/contracts';
import { parseDateTime, validationFailed } from '@bo/runtime';
import { lineTotalProblem } from '../domain/line-limits';
import type { NewInvoice } from './invoice.writer';

type CreateRequest = RequestOf<typeof invoicing.createInvoice> | RequestOf<typeof invoicing.createInvoiceFromSource>;

export const RECURRING_FREQUENCY_REQUIRED = 'invalid recurring configuration: frequency is required';

/** Turns a create request into the new invoice's columns, refusing what no field schema can see alone. */
export function newInvoiceFrom(req: CreateRequest, userId: string | undefined, now: Date): NewInvoice {
  const invoicedatetime = req.invoicedatetime ? parseDateTime(req.invoicedatetime) : now;
  const invoiceDate = invoicedatetime.toISOString().slice(0, 10);
  if (req.invoicedue && req.invoicedue < invoiceDate) {
    throw validationFailed('invoicedue must not be before the invoice date', [{ field: 'invoicedue', message: `invoicedue ${req.invoicedue} is before the invoice date ${invoiceDate}` }]);
  }
  const tooLarge = (req.line_items ?? []).flatMap((line, i) => {
    const problem = lineTotalProblem(line);
    const field = `line_items.${i}.quantity`;
    return problem ? [{ field, message: `${field}: ${problem}` }] : [];
  });
  if (tooLarge.length) throw validationFailed(tooLarge.map((e) => e.message).join('; '), tooLarge);
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
    chartofaccounts: req.chartofaccounts ?? null,
    invoicejournal: req.invoicejournal ?? null,
    tradeaccount: req.tradeaccount ?? null,
    created_by: req.userid ?? userId ?? null,
  };
  const recurring = 'recurring' in req ? req.recurring : undefined;
  if (recurring?.enabled) {
    if (!recurring.frequency) throw validationFailed(RECURRING_FREQUENCY_REQUIRED, [{ field: 'recurring.frequency', message: RECURRING_FREQUENCY_REQUIRED }]);
    const start = recurring.start_date ?? invoiceDate;
    Object.assign(values, {
      recurring_enabled: true,
      recurring_frequency: recurring.frequency,
      recurring_start_date: start,
      recurring_next_run_date: start,
      recurring_occurrences: recurring.occurrences_count ?? 0,
      recurring_status: 'active',
    } satisfies Partial<NewInvoice>);
  }
  return values;
}
