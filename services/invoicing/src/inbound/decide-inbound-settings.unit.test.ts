import { decideInboundSettings, inboundSettingsReply } from './decide-inbound-settings';

describe('deciding the inbound settings', () => {
  it.each([true, false])('given inbound_create_partners %s, when saved, then it is what is stored', (value) => {
    expect(decideInboundSettings({ inbound_create_partners: value })).toEqual({ createPartners: value });
  });

  it('given no setting, when saved, then nothing changes', () => {
    expect(decideInboundSettings({})).toEqual({ createPartners: undefined });
  });

  it('given the settings as stored, then the reply shows them', () => {
    expect(inboundSettingsReply(true)).toEqual({ message: 'Inbound settings saved', settings: { inbound_create_partners: true } });
  });
});
