import { invoicing, type RequestOf } from '@bo/contracts';
import { parseDateTime } from '@bo/kernel';
import { AppError, commitOnlyBefore, filledIn, handler, isUniqueViolation, statementEvent, unlessRefused, type Knex } from '@bo/runtime';
import { documentPartyOf, nowIn, readDocumentParty, readSettings, requirePartnerRole, resolveCatalogLines } from '@bo/billing';
import { lineField, newInvoiceFrom } from './create-input';
import { NEW_DOCUMENT_PAYMENT_STATE, toInvoiceRecord } from './invoice.record';
import { decideNewInvoice, newInvoiceRows, type NewInvoice } from './decide-new-invoice';
import { conversionIdOf, findConversionOf, linesOf, newInvoiceDraws, newInvoiceDrawn, newInvoicePartsAlone } from './invoice.repository';
import { createdEvent, insertInvoice } from './invoice.writer';

/**
 * Internal (sales' conversion): a quotation becomes at most one invoice. A repeat, even one racing
 * the first, answers with the invoice made first and `created: false`. The conversion link is this
 * operation's alone (`converted_from_quotation_id`): an invoice a client made naming the quotation in
 * its free-text source fields is never taken for its conversion. With `commit_before`, the invoice
 * is made before that moment or not at all.
 *
 * Stored as one statement as a rule (`alone`, as create-invoice.handler.ts stores a create), checked
 * before it against `commit_before`; when the series' number is taken, a race for the quotation made
 * its invoice meanwhile, or the moment has passed, nothing stays and the usual way (`apply`) answers.
 */
export const createFromSourceHandler = handler(invoicing.createInvoiceFromSource, {
  gather: async (req, ctx) => {
    // Whether the quotation was converted already, read with the partner and the books' settings,
    // and the ids a new invoice takes drawn.
    const quotationId = Number(req.sourceid);
    const reading = await readDocumentParty(
      ctx,
      req.partner,
      newInvoiceDraws((req.line_items ?? []).length, conversionIdOf(ctx.orgId, quotationId)),
    );
    const drawn = newInvoiceDrawn(reading.beside);
    const first = drawn.also === null ? undefined : await existing(ctx.db, ctx.orgId, quotationId);
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
    return { lines, values, defaults, today: now.date, drawn };
  },
  alone: (req, ctx, facts) => {
    if (facts.first) return undefined;
    const plan = unlessRefused(() => decideNewInvoice(ctx.orgId, sourceInvoice(req, facts.values), facts.lines, facts.defaults));
    if (!plan) return undefined;
    const stored = newInvoiceRows(plan, facts.drawn, plan.supplied ?? filledIn<string>());
    const write = newInvoicePartsAlone(plan, stored, null);
    return {
      ...write,
      // Checked in the statement, so that it writes nothing once its caller stopped waiting; the usual way then answers why.
      expects:
        req.commit_before === undefined
          ? write.expects
          : `${write.expects} and clock_timestamp() < to_timestamp(${Number(req.commit_before)} / 1000.0)`,
      events: [statementEvent(invoicing.invoiceCreated, ctx.orgId, createdEvent(stored.row))],
      reply: {
        message: 'Invoice created successfully',
        created: true,
        invoice: toInvoiceRecord(stored.row, stored.lines, facts.today, NEW_DOCUMENT_PAYMENT_STATE),
      },
    };
  },
  apply: async (req, ctx, facts) => {
    if (facts.first) return facts.first;
    try {
      // In a savepoint of its own, so that the loser of a race can still read the winner's invoice.
      const created = await ctx.db.transaction(async (trx) => {
        const made = await insertInvoice(
          trx,
          ctx.orgId,
          // In the source's currency when it has one (the one the customer accepted), else as any new invoice.
          sourceInvoice(req, facts.values),
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
      const winner = await existing(ctx.db, ctx.orgId, Number(req.sourceid));
      if (!winner) throw err;
      return winner;
    }
  },
});

/** The invoice of the source: in the source's currency when it has one (the one the customer accepted), else as any new invoice. */
function sourceInvoice(req: RequestOf<typeof invoicing.createInvoiceFromSource>, values: NewInvoice): NewInvoice {
  return {
    ...values,
    invoicestatus: req.invoicestatus ?? 'draft',
    converted_from_quotation_id: Number(req.sourceid),
    ...(req.currency ? { currency: req.currency } : {}),
  };
}

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
