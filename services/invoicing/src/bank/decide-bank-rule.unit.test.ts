import { isRefusal } from '@bo/runtime';
import { decideBankRule } from './decide-bank-rule';

const refusalOf = (decide: () => unknown) => {
  try {
    decide();
  } catch (err) {
    return err;
  }
  throw new Error('not refused');
};

describe('deciding a bank rule', () => {
  it('given nothing, when asked without an action, then the rules are only listed', () => {
    expect(decideBankRule({})).toEqual({ kind: 'list', message: 'Rules retrieved' });
    expect(decideBankRule({ rule_action: 'list' })).toEqual({ kind: 'list', message: 'Rules retrieved' });
  });

  it('given a text and an account, when created without a name, then it is named by its text', () => {
    expect(decideBankRule({ rule_action: 'create', match_text: 'bank fee', account: '6800 Bank Charges' })).toEqual({
      kind: 'create',
      rule: { name: 'bank fee', match_text: 'bank fee', match_iban: null, partner_id: null, account: '6800 Bank Charges' },
      message: 'Rule created',
    });
  });

  it('given an IBAN written with spaces and a partner, when created, then the IBAN is kept normalized and the rule named by it', () => {
    const change = decideBankRule({ rule_action: 'create', match_iban: 'de89 3704 0044 0532 0130 00', partner: 10 });
    expect(change).toMatchObject({
      kind: 'create',
      rule: { name: 'de89 3704 0044 0532 0130 00', match_text: null, match_iban: 'DE89370400440532013000', partner_id: 10, account: null },
    });
  });

  it('given a rule to create with nothing to match, or nothing to suggest, when decided, then it is refused', () => {
    expect(
      isRefusal(
        refusalOf(() => decideBankRule({ rule_action: 'create', account: '6800' })),
        'bank.ruleMatchRequired',
      ),
    ).toBe(true);
    expect(
      isRefusal(
        refusalOf(() => decideBankRule({ rule_action: 'create', match_text: 'fee' })),
        'bank.ruleTargetRequired',
      ),
    ).toBe(true);
  });

  it('given a delete, when it names a rule, then that rule is deleted; when it names none, then it is refused', () => {
    expect(decideBankRule({ rule_action: 'delete', rule_id: 4 })).toEqual({ kind: 'delete', ruleId: 4, message: 'Rule 4 deleted' });
    expect(
      isRefusal(
        refusalOf(() => decideBankRule({ rule_action: 'delete' })),
        'bank.ruleIdRequired',
      ),
    ).toBe(true);
  });
});
