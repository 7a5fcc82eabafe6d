import { invoicing } from '@bo/contracts';
import { parseDateTime } from '@bo/kernel';
import { AppError, commitOnlyBefore, handler, isUniqueViolation, type Knex } from '@bo/runtime';
import { documentPartyOf, nowIn, readDocumentParty, readSettings, requirePartnerRole, resolveCatalogLines } from '@bo/billing';
import { lineField, newInvoiceFrom } from './create-input';
import { NEW_DOCUMENT_PAYMENT_STATE, toInvoiceRecord } from './invoice.record';
import { conversionIdOf, findConversionOf, linesOf } from './invoice.repository';
import { insertInvoice } from './invoice.writer';

/**
 * Internal (sales' conversion): a quotation becomes at most one invoice. A repeat, even one racing
 * the first, answers with the invoice made first and `created: false`. The conversion link is this
 * operation's alone (`converted_from_quotation_id`): an invoice a client made naming the quotation in
 * its free-text source fields is never taken for its conversion. With `commit_before`, the invoice
 * is made before that moment or not at all.
 */
export const createFromSourceHandler = handler(invoicing.createInvoiceFromSource, {
  gather: async (req, ctx) => {
    // Whether the quotation was converted already, read with the partner and the books' settings.
    const quotationId = Number(req.sourceid);
    const reading = await readDocumentParty(ctx, req.partner, conversionIdOf(ctx.orgId, quotationId));
    const first = reading.beside === null ? undefined : await existing(ctx.db, ctx.orgId, quotationId);
    if (first) return { first };
    // Catalog confirms the products, variants and locations still exist; the invoice shows exactly what
    // the customer accepted: the quotation's price and its snapshot (name, description, SKU, unit,
    // nulls included), not the catalog as it is now. Only a sender without snapshots takes the catalog's.
    const checked = await resolveCatalogLines(ctx, req.line_items ?? [], lineField);
    const lines = checked.map(({ snapshot, ...line }) => (snapshot ? { ...line, ...snapshot } : line));
    // The invoice is dated now in the organization's time zone.
    const { partner, defaults } = await documentPartyOf(ctx, req.partner, reading);
    const now = nowIn(defaults.time_zone);
    const values = newInvoiceFrom(req, lines, ctx.userId, parseDateTime(now.dateTime));
    requirePartnerRole(partner, req.invoicetype);
    return { lines, values, defaults, today: now.date };
  },
  apply: async (req, ctx, facts) => {
    if (facts.first) return facts.first;
    const quotationId = Number(req.sourceid);
    try {
      // In a savepoint of its own, so that the loser of a race can still read the winner's invoice.
      const created = await ctx.db.transaction(async (trx) => {
        const made = await insertInvoice(
          trx,
          ctx.orgId,
          // In the source's currency when it has one (the one the customer accepted), else as any new invoice.
          {
            ...facts.values,
            invoicestatus: req.invoicestatus ?? 'draft',
            converted_from_quotation_id: quotationId,
            ...(req.currency ? { currency: req.currency } : {}),
          },
          facts.lines,
          // Read with the partner, outside the transaction, as a new invoice's are (create-invoice.handler.ts).
          facts.defaults,
        );
        // The caller (a conversion) treats this request as having made nothing once commit_before
        // passed. The last step: the runtime's COMMIT follows at once.
        if (req.commit_before !== undefined)
          await commitOnlyBefore(
            trx,
            req.commit_before,
            (late) =>
              new AppError(
                503,
                'service_unavailable',
                `The invoice was not made: its caller stopped waiting ${late} ms ago (commit_before), so it was rolled back`,
              ),
          );
        return made;
      });
      return {
        message: 'Invoice created successfully',
        created: true,
        invoice: toInvoiceRecord(created.row, created.lines, facts.today, NEW_DOCUMENT_PAYMENT_STATE),
      };
    } catch (err) {
      // The loser of a race rolled back its invoice (its number returns to the series) and reads the winner's.
      if (!isUniqueViolation(err, 'invoices_org_converted_quotation')) throw err;
      const winner = await existing(ctx.db, ctx.orgId, quotationId);
      if (!winner) throw err;
      return winner;
    }
  },
});

async function existing(db: Knex, orgId: number, quotationId: number) {
  const row = await findConversionOf(db, orgId, quotationId);
  if (!row) return undefined;
  const lines = (await linesOf(db, [row.id])).get(row.id) ?? [];
  return {
    message: 'Invoice already exists for this source',
    created: false,
    invoice: toInvoiceRecord(row, lines, (await readSettings(db, orgId)).today(), row.payment_state),
  };
}
