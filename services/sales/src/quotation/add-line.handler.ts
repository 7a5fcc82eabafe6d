import { sales } from '@bo/contracts';
import { handler, loadedUnlessRefused, unlessRefused } from '@bo/runtime';
import { resolveCatalogLines } from '@bo/billing';
import { actor } from '../actor';
import { decideAddLine } from './decide-add-line';
import { lineTooLarge, MAX_LINE_TOTAL, priceLine } from './quotation-lines';
import { lineAddedAlone, loadQuotation, lockAndLoadQuotation, storeLineAdded } from './quotation.repository';
import { quotationRefusals } from './quotation-refusals';

/** Its load reads the quotation's lines, and draws the id the new line takes. */
const LOAD = { lines: true, drawLineId: true };

/**
 * Asks catalog about the line first, with no transaction open (`gather`). Then load → decide → store,
 * optimistic as a rule: the quotation and its lines read with no lock, the line decided
 * (decideAddLine: the whole quotation computed again), and the line, the lines whose amounts moved
 * and the quotation's totals stored as one statement, only while the quotation is the row read
 * (`alone`). Every change of a quotation or its lines, and a conversion's freeze, updates its row: a
 * line added meanwhile, or a conversion that froze it, makes the store write nothing. That, or a
 * refusal, is judged again under the quotation's lock (`apply`), which serializes lines, edits and
 * conversion, so totals never lose a line.
 */
export const addQuotationLineHandler = handler(sales.addQuotationLine, {
  gather: async (req, ctx) => {
    const { quotation_id: _id, org_id: _org, userid: _user, action: _action, ...input } = req;
    const [resolved] = await resolveCatalogLines(ctx, [input], (_i, field) => field);
    const line = priceLine(resolved!);
    if (lineTooLarge(line.amounts)) throw quotationRefusals.lineTotalTooLarge(MAX_LINE_TOTAL.toFixed());
    return line;
  },
  // It only asks catalog: the store holds the operation key, no claim of its own is written before.
  readOnlyGather: true,
  alone: async (req, ctx, line) => {
    // Not found is a refusal too: judged, and recorded, the locked way.
    const loaded = await loadedUnlessRefused(loadQuotation(ctx.db, ctx.orgId, req.quotation_id, LOAD));
    const added = loaded && unlessRefused(() => decideAddLine(loaded, line, actor(req, ctx)));
    if (!loaded || !added) return undefined;
    return { ...lineAddedAlone(added, loaded.read), events: [], reply: added.reply };
  },
  apply: async (req, ctx, line) => {
    const state = await lockAndLoadQuotation(ctx.db, ctx.orgId, req.quotation_id, LOAD);
    const added = decideAddLine(state, line, actor(req, ctx));
    await storeLineAdded(ctx.db, added);
    return added.reply;
  },
});
