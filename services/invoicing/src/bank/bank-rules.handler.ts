import { invoicing } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { bankRefusals } from './bank-refusals';
import { deleteRule, insertRule, listRules } from './bank.repository';
import { normalizeIban } from './statement';

/** Matching rules: a line whose text contains `match_text` (or whose payer's IBAN is `match_iban`) is suggested for the partner's open documents and/or the account. */
export const bankRulesHandler = handler(invoicing.bankRules, async (req, ctx) => {
  const db = ctx.db;
  const action = req.rule_action ?? 'list';
  if (action === 'create') {
    if (!req.match_text && !req.match_iban) throw bankRefusals.ruleMatchRequired();
    if (req.partner === undefined && !req.account) throw bankRefusals.ruleTargetRequired();
    await insertRule(db, ctx.orgId, {
      name: req.name ?? req.match_text ?? req.match_iban ?? 'rule',
      match_text: req.match_text ?? null,
      match_iban: normalizeIban(req.match_iban),
      partner_id: req.partner ?? null,
      account: req.account ?? null,
    });
    return { message: 'Rule created', rules: await listRules(db, ctx.orgId) };
  }
  if (action === 'delete') {
    if (req.rule_id === undefined) throw bankRefusals.ruleIdRequired();
    if (!(await deleteRule(db, ctx.orgId, req.rule_id))) throw bankRefusals.ruleNotFound(req.rule_id);
    return { message: `Rule ${req.rule_id} deleted`, rules: await listRules(db, ctx.orgId) };
  }
  return { message: 'Rules retrieved', rules: await listRules(db, ctx.orgId) };
});
