import { dec, finerThanCurrency } from '@bo/kernel';
import type { Knex } from '@bo/runtime';
import { partnerRefusals } from './partner-refusals';

/**
 * A credit limit is weighed against the partner's balance, which is kept in its documents' currency
 * (the partner's, else the organization's default_currency) to that currency's minor unit. So it
 * takes two decimals, as it always has (a JPY partner's too), or as many as that currency has: three
 * for KWD or BHD. Judged when given; only a limit with more than two decimals reads the profile.
 */
export async function checkCreditLimit(
  db: Knex,
  orgId: number,
  limit: string | undefined,
  partnerCurrency: string | null | undefined,
): Promise<void> {
  if (!finerThanCents(limit)) return;
  const currency = partnerCurrency ?? (await organizationCurrency(db, orgId));
  const refusal = creditLimitRefusal(limit, currency);
  if (refusal) throw refusal;
}

function finerThanCents(limit: string | undefined): boolean {
  return limit !== undefined && dec(limit).decimalPlaces() > 2;
}

/** Whether judging the limit needs the organization's currency: finer than cents, of a partner without a currency of its own. */
export function creditLimitNeedsCurrency(limit: string | undefined, partnerCurrency: string | null | undefined): boolean {
  return finerThanCents(limit) && !partnerCurrency;
}

/** The refusal of a limit finer than the currency's minor unit (two decimals whatever the currency, or more where it has more); undefined if it fits. */
export function creditLimitRefusal(
  limit: string | undefined,
  currency: string | null | undefined,
): ReturnType<typeof partnerRefusals.creditLimitTooFine> | undefined {
  if (!finerThanCents(limit)) return undefined;
  const message = finerThanCurrency('credit_limit', limit as string, currency ?? null, 2);
  return message ? partnerRefusals.creditLimitTooFine(message) : undefined;
}

/** The organization's default currency (its profile), null if it has none. */
export async function organizationCurrency(db: Knex, orgId: number): Promise<string | null> {
  const profile = await db<{ org_id: number; default_currency: string | null }>('organization_profiles')
    .where({ org_id: orgId })
    .first('default_currency');
  return profile?.default_currency ?? null;
}
