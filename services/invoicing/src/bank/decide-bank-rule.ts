import { bankRefusals } from './bank-refusals';
import { normalizeIban } from './statement';

/** A matching rule as stored (`bank_rules`), without its id. */
export interface NewBankRule {
  name: string;
  match_text: string | null;
  match_iban: string | null;
  partner_id: number | null;
  account: string | null;
}

/** What a `bank.rules` request does: creates a rule, deletes one, or only lists them; each answers the rules as they then stand. */
export type BankRuleChange =
  | { kind: 'create'; rule: NewBankRule; message: string }
  | { kind: 'delete'; ruleId: number; message: string }
  | { kind: 'list'; message: string };

/**
 * A `bank.rules` request decided (pure): a rule created must match by something (text or IBAN) and
 * suggest something (a partner or an account), and is named by what it matches when it has no name;
 * a delete must name the rule. Whether the rule to delete exists is the store's to find out.
 */
export function decideBankRule(req: {
  rule_action?: 'list' | 'create' | 'delete' | undefined;
  rule_id?: number | undefined;
  name?: string | undefined;
  match_text?: string | undefined;
  match_iban?: string | undefined;
  partner?: number | undefined;
  account?: string | undefined;
}): BankRuleChange {
  const action = req.rule_action ?? 'list';
  if (action === 'create') {
    if (!req.match_text && !req.match_iban) throw bankRefusals.ruleMatchRequired();
    if (req.partner === undefined && !req.account) throw bankRefusals.ruleTargetRequired();
    return {
      kind: 'create',
      rule: {
        name: req.name ?? req.match_text ?? req.match_iban ?? 'rule',
        match_text: req.match_text ?? null,
        match_iban: normalizeIban(req.match_iban),
        partner_id: req.partner ?? null,
        account: req.account ?? null,
      },
      message: 'Rule created',
    };
  }
  if (action === 'delete') {
    if (req.rule_id === undefined) throw bankRefusals.ruleIdRequired();
    return { kind: 'delete', ruleId: req.rule_id, message: `Rule ${req.rule_id} deleted` };
  }
  return { kind: 'list', message: 'Rules retrieved' };
}
