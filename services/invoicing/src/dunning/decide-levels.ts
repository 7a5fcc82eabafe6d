import type { ReplyOf, RequestOf, invoicing } from '@bo/contracts';
import { dec } from '@bo/kernel';
import { levelsProblem } from './decide-dunning';
import { dunningRefusals } from './dunning-refusals';
import { feesOf, levelRecord, type DunningSetup } from './dunning.repository';
import { checkFeeTax, feeAccountProblem, feeTaxFromRequest, feeTaxRecord } from './fee-invoice';

/** What a levels request decides: the setup to store (null: it only lists), and the reply. */
export interface LevelsDecision {
  store: DunningSetup | null;
  reply: ReplyOf<typeof invoicing.dunningLevels>;
}

type LevelsRequest = Pick<
  RequestOf<typeof invoicing.dunningLevels>,
  'levels' | 'reference_rate' | 'points' | 'post_fees' | 'fee_tax' | 'fee_account'
>;

/** Whether a levels request changes the setup (any part of it given), or only lists it. */
export function changesSetup(req: LevelsRequest): boolean {
  return [req.levels, req.reference_rate, req.points, req.post_fees, req.fee_tax, req.fee_account].some((v) => v !== undefined);
}

/**
 * A levels request on the setup as read: any of `levels`, `reference_rate`, `points`, `post_fees`,
 * `fee_tax`, `fee_account` given replaces that part, and the setup it leaves is stored and answered;
 * none given, the setup is listed. Refused, in this order: a fee tax the EN 16931 rules refuse, a fee
 * account the journal keeps, levels out of order, points below the statutory 8.
 */
export function decideDunningLevels(current: DunningSetup, req: LevelsRequest): LevelsDecision {
  if (!changesSetup(req)) return { store: null, reply: levelsReply(current, false) };
  const feeTax = req.fee_tax === undefined ? undefined : feeTaxFromRequest(req.fee_tax);
  if (feeTax) checkFeeTax(feeTax);
  const feeAccount = req.fee_account?.trim();
  const accountProblem = feeAccount === undefined ? null : feeAccountProblem(feeAccount);
  if (accountProblem) throw dunningRefusals.feeAccountRefused(accountProblem);
  const levels =
    req.levels?.map((l) => ({
      level: l.level,
      days_after_due: l.days_after_due,
      fee: dec(l.fee).toFixed(),
      interest: l.interest,
      text: l.text,
    })) ?? current.levels;
  const problem = levelsProblem(levels);
  if (problem) throw dunningRefusals.levelsRefused(problem);
  const before = current.settings;
  const points = req.points !== undefined ? dec(req.points) : dec(before.points);
  if (points.lt(8)) throw dunningRefusals.pointsBelowStatutory(points.toFixed());
  const store: DunningSetup = {
    levels: [...levels].sort((a, b) => a.level - b.level),
    settings: {
      reference_rate: req.reference_rate !== undefined ? dec(req.reference_rate).toFixed() : before.reference_rate,
      points: points.toFixed(),
      post_fees: req.post_fees ?? before.post_fees,
      fee_tax: feeTax ?? before.fee_tax,
      fee_account: feeAccount ?? before.fee_account,
    },
  };
  return { store, reply: levelsReply(store, true) };
}

/** The setup as replies show it (`set`: as a request changing it leaves it). */
export function levelsReply(setup: DunningSetup, set: boolean): ReplyOf<typeof invoicing.dunningLevels> {
  const { levels, settings } = setup;
  return {
    message: set ? `${levels.length} reminder level(s) set` : `${levels.length} reminder level(s)`,
    levels: levels.map(levelRecord),
    reference_rate: settings.reference_rate === null ? null : Number(settings.reference_rate),
    points: Number(settings.points),
    post_fees: settings.post_fees,
    fee_tax: feeTaxRecord(feesOf(settings).tax),
    fee_account: settings.fee_account,
  };
}
