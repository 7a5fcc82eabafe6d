import { dec, finerThanCurrency } from '@bo/kernel';
import { validationFailed, type Knex } from '@bo/runtime';

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
  if (limit === undefined || dec(limit).decimalPlaces() <= 2) return;
  const currency = partnerCurrency ?? (await organizationCurrency(db, orgId));
  const message = finerThanCurrency('credit_limit', limit, currency, 2);
  if (message) throw validationFailed(message, [{ field: 'credit_limit', message }]);
}

async function organizationCurrency(db: Knex, orgId: number): Promise<string | null> {
  const profile = await db<{ org_id: number; default_currency: string | null }>('organization_profiles')
    .where({ org_id: orgId })
    .first('default_currency');
  return profile?.default_currency ?? null;
}
