import { sales } from '@bo/contracts';
import { handler, unlessRefused } from '@bo/runtime';
import { currentParties } from '@bo/billing';
import { actor } from '../actor';
import { decideEditQuotation, editNeedsLines } from './decide-edit-quotation';
import { loadQuotation, lockAndLoadQuotation, quotationEditAlone, storeQuotationEdit } from './quotation.repository';

/**
 * Load → decide → store, optimistic as a rule. The load reads the quotation (with its lines when
 * the edit may compute it again) with no lock; sending a draft issues it, so its parties are asked
 * of the partners service then, with no transaction open (`gather`). The edit is decided
 * (decideEditQuotation) and stored as one statement, only while the quotation is the row read
 * (`alone`): a line, an edit or a conversion's freeze meanwhile updates the row, and the store
 * writes nothing. That, a refusal, or a number another quotation took meanwhile, is judged again
 * under the quotation's lock (`apply`), which answers what it finds.
 */
export const editQuotationHandler = handler(sales.editQuotation, {
  gather: async (req, ctx) => {
    const loaded = await loadQuotation(ctx.db, ctx.orgId, req.quotation_id, { lines: editNeedsLines(req) });
    // Neither the partner nor the organization of a quotation ever changes, so the unlocked read names whom to ask.
    const parties = req.quotation_status === 'sent' ? await currentParties(ctx, loaded.quotation.partner_id) : null;
    return { loaded, parties };
  },
  // It reads, and asks partners: the store holds the operation key, no claim of its own is written before.
  readOnlyGather: true,
  alone: (req, ctx, { loaded, parties }) => {
    const edit = unlessRefused(() => decideEditQuotation(loaded, req, parties, actor(req, ctx)));
    if (!edit) return undefined;
    return { ...quotationEditAlone(edit, loaded.read), events: [], reply: edit.reply };
  },
  apply: async (req, ctx, { parties }) => {
    const state = await lockAndLoadQuotation(ctx.db, ctx.orgId, req.quotation_id, { lines: editNeedsLines(req) });
    const edit = decideEditQuotation(state, req, parties, actor(req, ctx));
    await storeQuotationEdit(ctx.db, edit);
    return edit.reply;
  },
});
