import { invoicing } from '@bo/contracts';
import { filledIn, handler, unlessRefused } from '@bo/runtime';
import { bankRefusals } from './bank-refusals';
import { bankRuleAlone, deleteRule, insertRule, listRules } from './bank.repository';
import { decideBankRule } from './decide-bank-rule';

/**
 * Matching rules: a line whose text contains `match_text` (or whose payer's IBAN is `match_iban`) is
 * suggested for the partner's open documents and/or the account.
 *
 * Decide (decideBankRule) → store, as one statement as a rule (`alone`): the rule created or deleted,
 * and the rules as it leaves them read in the same statement and filled into the reply. A delete of
 * a rule that is not there writes nothing (`expects`), and a request to refuse is not stored at all:
 * both go the usual way (`apply`), which refuses them in the runtime's transaction.
 */
export const bankRulesHandler = handler(invoicing.bankRules, {
  alone: (req, ctx) => {
    const change = unlessRefused(() => decideBankRule(req));
    if (!change) return undefined;
    return { ...bankRuleAlone(ctx.orgId, change), events: [], reply: { message: change.message, rules: filledIn() } };
  },
  apply: async (req, ctx) => {
    const change = decideBankRule(req);
    if (change.kind === 'create') await insertRule(ctx.db, ctx.orgId, change.rule);
    if (change.kind === 'delete' && !(await deleteRule(ctx.db, ctx.orgId, change.ruleId))) throw bankRefusals.ruleNotFound(change.ruleId);
    return { message: change.message, rules: await listRules(ctx.db, ctx.orgId) };
  },
});
