import { invoicing } from '@bo/contracts';
import { dec } from '@bo/kernel';
import { handler } from '@bo/runtime';
import { levelsProblem } from './decide-dunning';
import { dunningRefusals } from './dunning-refusals';
import { feesOf, levelRecord, loadLevels, loadSettings, lockDunningSettings, saveLevels } from './dunning.repository';
import { checkFeeTax, feeAccountProblem, feeTaxFromRequest, feeTaxRecord } from './fee-invoice';

/**
 * Sets the organization's reminder levels, statutory interest rate and fee posting (any of `levels`,
 * `reference_rate`, `points`, `post_fees`, `fee_tax`, `fee_account` given replaces that part), or lists them.
 */
export const dunningLevelsHandler = handler(invoicing.dunningLevels, async (req, ctx) => {
  const db = ctx.db;
  const changing = [req.levels, req.reference_rate, req.points, req.post_fees, req.fee_tax, req.fee_account].some((v) => v !== undefined);
  const feeTax = req.fee_tax === undefined ? undefined : feeTaxFromRequest(req.fee_tax);
  if (feeTax) checkFeeTax(feeTax);
  const feeAccount = req.fee_account?.trim();
  const accountProblem = feeAccount === undefined ? null : feeAccountProblem(feeAccount);
  if (accountProblem) throw dunningRefusals.feeAccountRefused(accountProblem);
  if (changing) {
    // Sets of one organization take turns, each reading what the one before it stored.
    await lockDunningSettings(db, ctx.orgId);
    const levels =
      req.levels?.map((l) => ({
        level: l.level,
        days_after_due: l.days_after_due,
        fee: dec(l.fee).toFixed(),
        interest: l.interest,
        text: l.text,
      })) ?? (await loadLevels(db, ctx.orgId));
    const problem = levelsProblem(levels);
    if (problem) throw dunningRefusals.levelsRefused(problem);
    const before = await loadSettings(db, ctx.orgId);
    const points = req.points !== undefined ? dec(req.points) : dec(before.points);
    if (points.lt(8)) throw dunningRefusals.pointsBelowStatutory(points.toFixed());
    const reference = req.reference_rate !== undefined ? dec(req.reference_rate).toFixed() : before.reference_rate;
    await saveLevels(db, ctx.orgId, levels, {
      reference_rate: reference,
      points: points.toFixed(),
      post_fees: req.post_fees ?? before.post_fees,
      fee_tax: feeTax ?? before.fee_tax,
      fee_account: feeAccount ?? before.fee_account,
    });
  }
  const levels = await loadLevels(db, ctx.orgId);
  const settings = await loadSettings(db, ctx.orgId);
  return {
    message: changing ? `${levels.length} reminder level(s) set` : `${levels.length} reminder level(s)`,
    levels: levels.map(levelRecord),
    reference_rate: settings.reference_rate === null ? null : Number(settings.reference_rate),
    points: Number(settings.points),
    post_fees: settings.post_fees,
    fee_tax: feeTaxRecord(feesOf(settings).tax),
    fee_account: settings.fee_account,
  };
});
