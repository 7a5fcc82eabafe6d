import { changesSetup, decideDunningLevels } from './decide-levels';
import type { DunningSetup } from './dunning.repository';

const none: DunningSetup = {
  levels: [],
  settings: { reference_rate: null, points: '8', post_fees: false, fee_tax: null, fee_account: '4750 Reminder Fees' },
};
const LEVELS = [
  { level: 1, days_after_due: 7, fee: '0', interest: false, text: 'Friendly reminder' },
  { level: 2, days_after_due: 21, fee: '5.00', interest: true, text: 'Second reminder' },
];
const req = {};

describe('deciding the reminder levels', () => {
  it('given nothing to change, when asked, then the setup is listed and nothing stored', () => {
    expect(changesSetup(req)).toBe(false);
    expect(decideDunningLevels(none, req)).toEqual({
      store: null,
      reply: {
        message: '0 reminder level(s)',
        levels: [],
        reference_rate: null,
        points: 8,
        post_fees: false,
        fee_tax: expect.objectContaining({ category: 'E', rate: 0 }),
        fee_account: '4750 Reminder Fees',
      },
    });
  });

  it('given levels out of order and a rate, when set, then they are stored by level with the rate, and answered so', () => {
    const decision = decideDunningLevels(none, { ...req, levels: [LEVELS[1]!, LEVELS[0]!], reference_rate: '4.5' });
    expect(decision.store).toEqual({
      levels: [
        { ...LEVELS[0], fee: '0' },
        { ...LEVELS[1], fee: '5' },
      ],
      settings: { ...none.settings, reference_rate: '4.5' },
    });
    expect(decision.reply).toMatchObject({
      message: '2 reminder level(s) set',
      reference_rate: 4.5,
      points: 8,
      levels: [{ level: 1 }, { level: 2, fee: 5 }],
    });
  });

  it('given a setup, when only points are set, then its levels and other settings stay', () => {
    const setup: DunningSetup = { levels: LEVELS, settings: { ...none.settings, reference_rate: '4.5', post_fees: true } };
    expect(decideDunningLevels(setup, { ...req, points: '9' }).store).toEqual({
      levels: LEVELS,
      settings: { ...setup.settings, points: '9' },
    });
  });

  it('given a fee account with spaces, when set, then it is stored trimmed', () => {
    expect(decideDunningLevels(none, { ...req, fee_account: ' 4760 Fees ' }).store?.settings.fee_account).toBe('4760 Fees');
  });

  it('given levels with a gap, when set, then they are refused on levels', () => {
    expect(() => decideDunningLevels(none, { ...req, levels: [LEVELS[0]!, { ...LEVELS[1]!, level: 3 }] })).toThrow(
      expect.objectContaining({ refusal: 'dunning.levelsRefused', code: 'validation_failed' }),
    );
  });

  it('given points below 8, when set, then they are refused as below the statutory 8', () => {
    expect(() => decideDunningLevels(none, { ...req, points: '7' })).toThrow(
      expect.objectContaining({ code: 'validation_failed', message: 'points 7 is below the statutory 8' }),
    );
  });

  it('given the receivables account as the fee account, when set, then it is refused on fee_account', () => {
    expect(() => decideDunningLevels(none, { ...req, fee_account: '1200 Accounts Receivable' })).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        message: expect.stringMatching(/^fee_account 1200 Accounts Receivable is kept/),
      }),
    );
  });

  it('given a standard-rated fee tax of 0 %, when set, then it is refused by the EN 16931 rules', () => {
    expect(() => decideDunningLevels(none, { ...req, fee_tax: { category: 'S', rate: '0' } })).toThrow(
      expect.objectContaining({ code: 'validation_failed' }),
    );
  });
});
