import { exampleStory, operationsByName, type ExampleStep } from '@bo/contracts';
import { FakeDns } from '@bo/testkit';
import { eventually, startTestSystem, type ApiResponse, type TestSystem } from '../support/system';

/**
 * The examples of the API reference work: the story they come from (packages/contracts/src/examples.ts),
 * played request by request on a new database through the gateway, answers each one 200 with the
 * reply the reference shows, ids, numbers and dates included. Only the clock's date-times (a
 * record's `created_at`) may differ, and a rendered file's base64, which the example cuts short,
 * starts as shown.
 */

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** Where `actual` differs from `expected`, as `path: expected → actual` lines. */
function differences(actual: unknown, expected: unknown, at = 'body'): string[] {
  if (typeof expected === 'string' && typeof actual === 'string') {
    if (DATE_TIME.test(expected) && DATE_TIME.test(actual)) return [];
    if (expected.endsWith('…') && actual.startsWith(expected.slice(0, -1))) return [];
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) return [`${at}: ${expected.length} items → ${actual.length}`];
    return expected.flatMap((item, i) => differences(actual[i], item, `${at}[${i}]`));
  }
  if (expected && actual && typeof expected === 'object' && typeof actual === 'object' && !Array.isArray(expected)) {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(e), ...Object.keys(a)])];
    return keys.flatMap((k) =>
      k in e && k in a ? differences(a[k], e[k], `${at}.${k}`) : [`${at}.${k}: ${k in e ? 'shown, not answered' : 'answered, not shown'}`],
    );
  }
  return Object.is(actual, expected) ? [] : [`${at}: ${JSON.stringify(expected)} → ${JSON.stringify(actual)}`];
}

/** Where the story's webhook endpoint is: a public address when it is made, no longer resolving by its ping (see examples.ts). */
const WEBHOOK_HOST = 'hooks.example.com';

describe('the API reference examples, played on a new database', () => {
  let sys: TestSystem;
  let dns: FakeDns;
  let served: {
    paths: Record<string, { post: { requestBody: { content: { 'application/json': { examples: Record<string, { value: unknown }> } } } } }>;
  };
  beforeAll(async () => {
    dns = await new FakeDns({ [WEBHOOK_HOST]: ['203.0.113.10'] }).start();
    // The story imports a received e-invoice: the rules are warmed at start, and a cold first run may
    // outlast the default RPC wait on a loaded machine.
    sys = await startTestSystem({ env: { WEBHOOKS_DNS_SERVERS: dns.server, EINVOICE_RULES_WARM: 'on', RPC_TIMEOUT_MS: '60000' } });
    served = (await (await fetch(`${sys.url}/openapi.json`)).json()) as typeof served;
  }, 60_000);
  afterAll(async () => {
    await sys?.stop();
    await dns?.stop();
  });

  /** The day the served document counts its dates from (the gateway's day at start): its quotation's date. */
  function servedStory(): ExampleStep[] {
    const shown = served.paths['/sales/addline']!.post.requestBody.content['application/json'].examples['sales.quotation.create']!
      .value as {
      quotation_date: string;
    };
    return exampleStory(shown.quotation_date.slice(0, 10));
  }

  it('shows in /openapi.json the first step of each operation in the story', () => {
    const story = servedStory();
    for (const [path, item] of Object.entries(served.paths)) {
      for (const [name, example] of Object.entries(item.post.requestBody.content['application/json'].examples)) {
        expect([path, name, example.value]).toEqual([path, name, story.find((s) => s.operation === name)?.request]);
      }
    }
  });

  it('answers every request of the story 200 with the reply the example shows', async () => {
    const story = servedStory();
    for (const [i, step] of story.entries()) {
      const op = operationsByName.get(step.operation)!;
      // A step may read what an earlier one's events bring (a partner's balance): a read is asked
      // again until it agrees, a refused write (which changed nothing) is sent again; a write
      // answered is never repeated.
      const answer: ApiResponse = await eventually(
        async () => {
          const r = await sys.post(op.paths[0] as string, step.request);
          if (r.statusCode !== 200 || (!op.write && differences(r.body, step.reply).length > 0))
            throw new Error(`step ${i} ${step.operation} answered ${r.statusCode}: ${JSON.stringify(r.body).slice(0, 400)}`);
          return r;
        },
        { timeoutMs: 15_000, intervalMs: 100 },
      );
      expect([i, step.operation, differences(answer.body, step.reply)]).toEqual([i, step.operation, []]);
      if (step.operation === 'webhooks.endpoint.create') dns.answer(WEBHOOK_HOST, 'nxdomain');
    }
  }, 180_000);
});
