import type { invoicing, ReplyOf } from '@bo/contracts';

/** What a `bank.settings` request stores and answers. */
export interface BankSettingsPlan {
  /** Whether import reconciles what its references name, as set now; undefined: left as it is. */
  autoreconcile: boolean | undefined;
  reply: ReplyOf<typeof invoicing.bankSettings>;
}

/**
 * The organization's bank settings (pure): the ones given are set, and every one is answered as it
 * then stands, the one given as given, the one not given as it `stands` (true until set).
 */
export function decideBankSettings(
  req: { bank_autoreconcile?: boolean | undefined },
  stands: { autoreconcile: boolean },
): BankSettingsPlan {
  const autoreconcile = req.bank_autoreconcile;
  return {
    autoreconcile,
    reply: { message: 'Bank settings saved', settings: { bank_autoreconcile: autoreconcile ?? stands.autoreconcile } },
  };
}
