import { prepareEInvoiceRules } from '../../../packages/documents/src/einvoice/validate';

/**
 * Global setup of every tier that may run the official e-invoice rules (int, e2e, fuzz, chaos):
 * compiles them once, before any test starts. On a fresh clone that is minutes of CPU; left to the
 * first test that needs them, it ran beside other tests and an import waited past its RPC timeout.
 * Compiled sets are cached (node_modules/.cache/einvoice), so later runs pass straight through.
 */
export default async function compileEInvoiceRules(): Promise<void> {
  const started = Date.now();
  await prepareEInvoiceRules();
  const ms = Date.now() - started;
  if (ms > 1000) process.stdout.write(`\ne-invoice rules compiled in ${Math.round(ms / 1000)} s (cached for later runs)\n`);
}
