import { createDb, type Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import { newProducts } from './catalog';
import { eventually, startTestSystem, type ApiResponse, type TestSystem } from './system';

/** The reply of a call that must succeed; fails with the reply's body otherwise. */
export async function ok(reply: Promise<ApiResponse>): Promise<ApiResponse> {
  const r = await reply;
  if (r.statusCode !== 200) throw new Error(`expected 200, got ${r.statusCode}: ${JSON.stringify(r.body)}`);
  return r;
}

export interface InvoicingSuite {
  sys: TestSystem;
  /** A pool on invoicing's schema, to read the rows and journal behind the replies. */
  invoicingDb: Knex;
  /** A service product (no stock moves) for document lines. */
  product: number;
  /** POSTs through the gateway as organization 1's user `e2e`. */
  post: (path: string, body: Record<string, unknown>) => Promise<ApiResponse>;
  payments: (body: Record<string, unknown>) => Promise<ApiResponse>;
  /** Waits until invoicing's copy of organization 1's settings, fed by the profile's event, passes `check`. */
  settingsReach(check: (row: Record<string, any> | undefined) => void): Promise<void>;
  /** Sends a request, judges its reply with `judge`, and proves it changed nothing in invoicing's schema. */
  unchangedBy(send: () => Promise<ApiResponse>, judge: (reply: ApiResponse) => void): Promise<void>;
}

/**
 * The system for an invoicing suite, through the gateway: started before the suite's tests (with a
 * product named `productName`) and stopped after them. Call inside `describe`, before the suite's own
 * `beforeAll`, which then finds the fields set; they are unset until then.
 */
export function invoicingSuite(productName: string): InvoicingSuite {
  const suite = {
    post: (path: string, body: Record<string, unknown>) => suite.sys.post(path, { org_id: 1, userid: 'e2e', ...body }),
    payments: (body: Record<string, unknown>) => suite.post('/invoicing/payments', body),
    settingsReach: (check: (row: Record<string, any> | undefined) => void) =>
      eventually(async () => check(await suite.invoicingDb('organization_settings').where({ org_id: 1 }).first())),
    async unchangedBy(send: () => Promise<ApiResponse>, judge: (reply: ApiResponse) => void) {
      const before = await testing.schemaSnapshot(suite.invoicingDb, 'invoicing');
      judge(await send());
      expect(await testing.schemaSnapshot(suite.invoicingDb, 'invoicing')).toEqual(before);
    },
  } as InvoicingSuite;
  beforeAll(async () => {
    suite.sys = await startTestSystem({ bus: 'in-process' });
    suite.invoicingDb = createDb(suite.sys.databaseUrl, 'invoicing', 2);
    [suite.product] = (await newProducts(suite.sys, [productName])) as [number];
  });
  afterAll(async () => {
    await suite.invoicingDb?.destroy();
    await suite.sys?.stop();
  });
  return suite;
}
