import { invoicing } from '@bo/contracts';
import { dec, formatDate, formatDateTime, toNumber } from '@bo/kernel';
import { currentParties, handler, invalidState, notFound, recordEvent, organizationToday } from '@bo/runtime';
import { accountsFor, invoiceEntryLines } from '../domain/journal';
import { assertCreditAvailable } from './credit-check';
import { assertCreditable } from './credit-link';
import { dueOf, eventRef, statusOf, type InvoiceRow } from './invoice.record';
import { findInvoice, linesOf } from './invoice.repository';
import { invoiceParties, issuedColumns } from './issued-snapshot';
import { postEntry } from './journal.repository';

/**
 * The partner's credit and both parties' data (frozen with the invoice) are asked of the partners
 * service first, before any lock is taken or connection held, so a slow partners service cannot
 * stall other writes or drain the pool.
 */
export const validateInvoiceHandler = handler(invoicing.validateInvoice, {
  gather: async (req, ctx) => {
    // Neither type nor partner of an invoice ever changes, so the unlocked read decides whether to ask.
    const unlocked = await findInvoice(ctx.db, ctx.orgId, req.id);
    const checksCredit = needsCreditCheck(unlocked.invoicetype, req.override_credit_limit);
    const parties = await currentParties(ctx, unlocked.partner_id, { credit: checksCredit });
    if (checksCredit && !parties.credit) throw notFound('Partner', unlocked.partner_id);
    return { checksCredit, parties };
  },
  apply: async (req, ctx, { checksCredit, parties }) => {
    const invoice = await findInvoice(ctx.db, ctx.orgId, req.id, { lock: true });
    if (invoice.invoicestatus !== 'draft' && invoice.invoicestatus !== 'proforma') {
      throw invalidState(
        `Invoice ${invoice.invoicenumber} cannot be validated: it is ${statusOf(invoice, await organizationToday(ctx.db, ctx.orgId))}; only draft or proforma invoices can be validated`,
      );
    }
    const lines = (await linesOf(ctx.db, [invoice.id])).get(invoice.id) ?? [];
    if (lines.length === 0) throw invalidState(`Invoice ${invoice.invoicenumber} cannot be validated: it has no lines`);

    // Checked while the invoice is locked, so its total cannot grow between the check and the posting.
    if (checksCredit && parties.credit) await assertCreditAvailable(ctx.db, invoice, parties.credit);
    // A credit note never takes its invoice's validated credit notes past the invoice's total.
    await assertCreditable(ctx.db, invoice);

    const accounts = accountsFor(invoice.invoicetype, invoice);
    const invoiceDate = formatDate(invoice.invoicedatetime) as string;
    const journalEntryId = await postEntry(
      ctx.db,
      {
        org_id: ctx.orgId,
        invoice_id: invoice.id,
        kind: 'invoice',
        journalname: accounts.journal,
        journaldate: invoiceDate,
        reference: invoice.invoicenumber,
      },
      invoiceEntryLines(
        invoice.invoicetype,
        { subtotal: invoice.subtotal, tax_amount: invoice.tax_amount, total: invoice.invoicetotal },
        accounts,
      ),
    );
    // A zero-total document has nothing to collect: it is settled as soon as it is posted.
    const settled = dec(invoice.invoicetotal).isZero();
    // Issued: what it shows of its parties, and its currency, never change from here on.
    const frozen = await issuedColumns(ctx.db, invoice, invoiceParties(invoice, parties.records, parties.partnerName));
    const [row] = (await ctx
      .db('invoices')
      .where({ id: invoice.id })
      .update({
        invoicestatus: settled ? 'paid' : 'open',
        ...frozen,
        validated_at: ctx.db.fn.now(),
        updated_at: ctx.db.fn.now(),
        ...(settled ? { paid_at: ctx.db.fn.now() } : {}),
      })
      .returning('*')) as InvoiceRow[];
    const posted = row as InvoiceRow;
    await recordEvent(ctx.db, invoicing.invoiceValidated.type, ctx.orgId, {
      ...eventRef(posted),
      journal_entry_id: journalEntryId,
      invoicedatetime: formatDateTime(posted.invoicedatetime) as string,
      invoicedue: formatDate(posted.invoicedue),
      validated_at: formatDateTime(posted.validated_at) as string,
      subtotal: toNumber(posted.subtotal),
      tax_amount: toNumber(posted.tax_amount),
      // Catalog moves stock by these (docs/design.md "stock follows documents"); a line never checked
      // against the catalog may name another product's id, so it moves nothing.
      lines: lines
        .filter((l) => l.catalog_checked)
        .map((l) => ({
          line_id: l.id,
          product_id: l.product_id,
          variant_id: l.variant_id,
          location_id: l.location_id,
          quantity: toNumber(l.quantity),
        })),
      restock: posted.restock,
    });
    if (settled)
      await recordEvent(ctx.db, invoicing.invoicePaid.type, ctx.orgId, {
        ...eventRef(posted),
        paid_at: formatDateTime(posted.paid_at) as string,
      });
    return {
      message: `Invoice ${posted.invoicenumber} validated successfully`,
      invoice: {
        id: posted.id,
        invoicenumber: posted.invoicenumber,
        invoicestatus: statusOf(posted, await organizationToday(ctx.db, ctx.orgId)),
        journal_entry_id: journalEntryId,
        invoicetotal: toNumber(posted.invoicetotal),
        due_amount: dueOf(posted),
      },
    };
  },
});

/** Only a sale is checked against the partner's credit, and only unless the caller overrides it. */
function needsCreditCheck(type: string, override: boolean | undefined): boolean {
  return type === 'invoiceout' && !override;
}
