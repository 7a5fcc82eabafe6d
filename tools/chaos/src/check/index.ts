import { allocationsCheck } from './allocations';
import { conversionsCheck, numbersCheck, recurringCheck } from './documents';
import { dunningCheck } from './dunning';
import { keysCheck } from './keys';
import { ledgerCheck } from './ledger';
import { stockCheck } from './stock';
import { webhooksCheck } from './webhooks';
import { deadLettersCheck, eventsCheck, no500Check, processesCheck } from './transport';
import type { Check, CheckContext, CheckResult } from './types';
import { writesCheck } from './writes';

export type { CheckContext, CheckResult, Violation } from './types';

/** Re-sends every key first: it settles writes whose outcome the faults left unknown. */
export const replayChecks: Check[] = [keysCheck];

/** Run after the replays have drained too. */
export const stateChecks: Check[] = [
  writesCheck,
  ledgerCheck,
  allocationsCheck,
  numbersCheck,
  conversionsCheck,
  recurringCheck,
  dunningCheck,
  stockCheck,
  eventsCheck,
  webhooksCheck,
  deadLettersCheck,
  processesCheck,
  no500Check,
];

export async function runChecks(checks: readonly Check[], ctx: CheckContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    try {
      const r = await check.run(ctx);
      results.push({ name: check.name, title: check.title, ok: r.violations.length === 0, ...r });
    } catch (err) {
      results.push({
        name: check.name,
        title: check.title,
        ok: false,
        summary: 'the check itself failed',
        violations: [{ message: (err as Error).stack ?? String(err) }],
      });
    }
  }
  return results;
}
