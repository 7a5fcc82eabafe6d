import { createHash } from 'node:crypto';
import { organization } from '@bo/contracts';
import { dec, documentMinorUnit, toNumber } from '@bo/kernel';
import { handler, recordEvent, validationFailed } from '@bo/runtime';
import { SET_FIELDS, toProfileRecord, toProfileSummary, type ProfileRow } from './profile.record';

/**
 * Sets the fields given (null or "" clears one) and announces the whole profile, without the logo's
 * bytes, as `partners.organization.updated`. The row is created on the first set and locked for the
 * update, so concurrent sets each add one to the version and none is lost.
 */
export const setProfileHandler = handler(organization.setProfile, async (req, ctx) => {
  const changes: Partial<Record<keyof ProfileRow, unknown>> = {};
  for (const field of SET_FIELDS) if (req[field] !== undefined) changes[field] = req[field];
  if (req.logo_png !== undefined) {
    const bytes = req.logo_png === null ? null : Buffer.from(req.logo_png, 'base64');
    changes.logo_png = bytes;
    changes.logo_sha256 = bytes ? createHash('sha256').update(bytes).digest('hex') : null;
  }
  return ctx.db.transaction(async (trx) => {
    await trx('organization_profiles').insert({ org_id: ctx.orgId, version: 0 }).onConflict('org_id').ignore();
    // The update locks the row; a concurrent set waits and then adds one to the version it left.
    const [row] = (await trx('organization_profiles')
      .where({ org_id: ctx.orgId })
      .update({ ...changes, version: trx.raw('version + 1'), updated_by: req.userid ?? ctx.userId ?? null, updated_at: trx.fn.now() })
      .returning('*')) as ProfileRow[];
    // Judged on the profile as it now stands: a currency change can break the cash rounding set before it.
    const problem = cashRoundingProblem(row!);
    if (problem) throw validationFailed(problem, [{ field: 'cash_rounding', message: problem }]);
    await recordEvent(trx, organization.organizationUpdated.type, ctx.orgId, toProfileSummary(ctx.orgId, row));
    return { message: 'Organization profile updated successfully', organization: toProfileRecord(ctx.orgId, row) };
  });
});

/** A cash rounding finer than its currency's smallest amount (0.001 in EUR, 0.5 in JPY); null when fine. */
function cashRoundingProblem(row: ProfileRow): string | null {
  if (row.cash_rounding === null) return null;
  const places = documentMinorUnit(row.default_currency);
  if (places === undefined) return null;
  // The kernel's rule for a document's cash rounding (decideDocumentTaxes), applied to the profile.
  if (dec(row.cash_rounding).decimalPlaces() <= places) return null;
  return `cash_rounding ${toNumber(row.cash_rounding)} is no multiple of ${row.default_currency ?? 'the currency'}'s smallest amount (${places} decimals)`;
}
