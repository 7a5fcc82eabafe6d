import { prepareEInvoiceRules, validateEInvoice } from '@bo/documents';
import type { BackgroundTask } from '@bo/runtime';

const EMPTY_UBL = '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>';
const EMPTY_CII = '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>';

/**
 * At start, compiles the official rules (prepareEInvoiceRules) and runs each syntax's EN 16931 set
 * once on an empty document, so the validation thread has parsed them before the first import: a
 * cold rule set takes several seconds, more than an RPC waits. A failure here only leaves the first
 * import slower; it is logged, never fatal. Stopping does not wait for it: where the rules are not
 * compiled yet (a fresh checkout) that takes minutes, and nothing of it needs finishing.
 */
export function warmEInvoiceRules(log: (message: string, err: unknown) => void): BackgroundTask {
  return {
    start() {
      void (async () => {
        await prepareEInvoiceRules();
        await validateEInvoice('ubl', EMPTY_UBL, undefined);
        await validateEInvoice('cii', EMPTY_CII, undefined);
      })().catch((err: unknown) => log('e-invoice rules not warmed', err));
    },
    async stop() {},
  };
}
