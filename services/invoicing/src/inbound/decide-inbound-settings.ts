import type { ReplyOf, invoicing } from '@bo/contracts';

/** What a settings request changes: `createPartners` undefined changes nothing (the settings are only answered). */
export interface InboundSettingsChange {
  createPartners: boolean | undefined;
}

/** The change a settings request asks: each setting given replaces the stored one; none given, nothing changes. */
export function decideInboundSettings(req: { inbound_create_partners?: boolean | undefined }): InboundSettingsChange {
  return { createPartners: req.inbound_create_partners };
}

/** The reply: the settings as they stand once the request is stored. */
export function inboundSettingsReply(createPartners: boolean): ReplyOf<typeof invoicing.inboundSettings> {
  return { message: 'Inbound settings saved', settings: { inbound_create_partners: createPartners } };
}
