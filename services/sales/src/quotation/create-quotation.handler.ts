import { sales } from '@bo/contracts';
import { filledIn, handler, unlessRefused } from '@bo/runtime';
import {
  assertNotFenced,
  currentParties,
  documentPartyOf,
  nowIn,
  readDocumentParty,
  requirePartnerRole,
  resolveCatalogLines,
} from '@bo/billing';
import { actor } from '../actor';
import { decideCreateQuotation, quotationCreatedReply, refuseOversizedLines } from './decide-create-quotation';
import { priceLine, validUntilBeforeDate } from './quotation-lines';
import { quotationRefusals } from './quotation-refusals';
import { newQuotationAlone, newQuotationDrawn, newQuotationDraws, storeNewQuotation } from './quotation.repository';

/**
 * Load → decide → store. The load asks catalog for the lines, reads the partner with the
 * organization's settings (one statement, which also draws the ids the quotation and its lines take
 * and the time), and asks partners for the parties of a quotation created as sent, with no
 * transaction open (`gather`); the decision (decideCreateQuotation) is pure. The store is one
 * statement as a rule (`alone`): the partner's delete fence checked, the gapless number taken, the
 * quotation and its lines written as decided, with the recorded reply. When a fence stands or the
 * number is taken, or the request is refused, the usual way (`apply`) runs it in a transaction,
 * which answers what it finds.
 */
export const createQuotationHandler = handler(sales.createQuotation, {
  gather: async (req, ctx) => {
    if (validUntilBeforeDate(req.quotation_date, req.valid_until))
      throw quotationRefusals.validUntilBeforeQuotationDate(req.valid_until, req.quotation_date.slice(0, 10));
    const resolved = await resolveCatalogLines(ctx, req.line_items ?? [], (i, field) => `line_items.${i}.${field}`);
    const lines = resolved.map(priceLine);
    refuseOversizedLines(lines);
    // The partner, its currency and the organization's settings in one read, with the ids drawn.
    const reading = await readDocumentParty(ctx, req.partner, newQuotationDraws(lines.length));
    const { partner, defaults } = await documentPartyOf(ctx, req.partner, reading);
    requirePartnerRole(partner, req.quotation_type);
    // A quotation made as sent is issued at once: its parties are frozen with it.
    const parties = req.quotation_status === 'sent' ? await currentParties(ctx, req.partner) : null;
    return { lines, defaults, parties, today: nowIn(defaults.time_zone).date, drawn: newQuotationDrawn(reading.beside) };
  },
  // It asks catalog and partners, and reads (a partner unknown to the directory is fetched and kept
  // there): the store holds the operation key, no claim of its own is written before.
  readOnlyGather: true,
  alone: (req, ctx, state) => {
    const created = unlessRefused(() => decideCreateQuotation(req, state, { orgId: ctx.orgId, actor: actor(req, ctx) }));
    if (!created) return undefined;
    return {
      ...newQuotationAlone(created),
      events: [],
      reply: quotationCreatedReply(created, created.supplied ?? filledIn<string>(), state.today),
    };
  },
  apply: async (req, ctx, state) => {
    // The partner's delete fence first, as its lock (shared) must be held before anything is written.
    await assertNotFenced(ctx.db, ctx.orgId, req.partner);
    const created = decideCreateQuotation(req, state, { orgId: ctx.orgId, actor: actor(req, ctx) });
    return quotationCreatedReply(created, await storeNewQuotation(ctx.db, created), state.today);
  },
});
