import { decideBankSettings } from './decide-bank-settings';

describe('deciding the bank settings', () => {
  it('given autoreconcile on, when it is switched off, then off is stored and answered', () => {
    expect(decideBankSettings({ bank_autoreconcile: false }, { autoreconcile: true })).toEqual({
      autoreconcile: false,
      reply: { message: 'Bank settings saved', settings: { bank_autoreconcile: false } },
    });
  });

  it('given autoreconcile off, when no setting is given, then nothing is stored and it is answered as it stands', () => {
    expect(decideBankSettings({}, { autoreconcile: false })).toEqual({
      autoreconcile: undefined,
      reply: { message: 'Bank settings saved', settings: { bank_autoreconcile: false } },
    });
  });

  it('given autoreconcile off, when it is set on again, then on is stored and answered', () => {
    const plan = decideBankSettings({ bank_autoreconcile: true }, { autoreconcile: false });
    expect([plan.autoreconcile, plan.reply.settings.bank_autoreconcile]).toEqual([true, true]);
  });
});
