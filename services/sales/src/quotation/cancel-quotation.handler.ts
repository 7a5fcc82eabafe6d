import { sales } from '@bo/contracts';
import { handler, loadedUnlessRefused, unlessRefused } from '@bo/runtime';
import { readSettings } from '@bo/billing';
import { actor } from '../actor';
import { cancellationAlone, findQuotation, markCancelled, readQuotationWithToday } from './quotation.repository';
import { decideCancel } from './quotation-rules';

/**
 * Load → decide → store, optimistic as a rule: the quotation read with no lock, the cancel decided
 * (decideCancel), and its update as one statement, only while the quotation is the row read
 * (`alone`). A conversion freezes the quotation before it asks invoicing for the invoice, and the
 * freeze updates the row: a cancel either comes first and the conversion is refused, or finds it
 * frozen and is refused itself, never both, and never an invoice left behind for a cancelled
 * quotation. A refusal, or a quotation that moved since it was read, is judged again under the
 * quotation's lock (`apply`).
 */
export const cancelQuotationHandler = handler(sales.cancelQuotation, {
  alone: async (req, ctx) => {
    // Not found is a refusal too: judged, and recorded, the locked way.
    const loaded = await loadedUnlessRefused(readQuotationWithToday(ctx.db, ctx.orgId, req.quotation_id));
    const reply = loaded && unlessRefused(() => decideCancel(loaded.quotation, loaded.today));
    if (!loaded || !reply) return undefined;
    return { ...cancellationAlone(loaded.quotation.id, actor(req, ctx), loaded.read), events: [], reply };
  },
  apply: async (req, ctx) => {
    return ctx.db.transaction(async (trx) => {
      const q = await findQuotation(trx, ctx.orgId, req.quotation_id, { lock: true });
      const reply = decideCancel(q, (await readSettings(trx, ctx.orgId)).today());
      await markCancelled(trx, q.id, actor(req, ctx));
      return reply;
    });
  },
});
