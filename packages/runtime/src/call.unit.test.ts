import { z } from 'zod';
import { defineOperation, type RpcReply } from '@bo/contracts';
import type { Bus, RequestMeta } from './bus/types';
import { caller, CallError, downstreamTimeoutMs } from './call';
import { BusError } from './errors';

const lookup = defineOperation({
  name: 'partners.test.lookup',
  service: 'partners',
  summary: 'test',
  paths: [],
  select: { default: true },
  write: false,
  request: z.object({ org_id: z.unknown(), partner_id: z.number() }),
  reply: z.object({ message: z.string(), partner: z.object({ id: z.number(), name: z.string() }) }),
});

const config = { RPC_TIMEOUT_MS: 5000 };
const meta = { orgId: 7, userId: 'u1', requestId: 'r1', operationKey: 'not-forwarded' };

/** A bus whose one request answers `answer` (or throws it), recording what was sent. */
function busAnswering(answer: RpcReply | Error) {
  const sent: Array<{ operation: string; payload: unknown; meta: RequestMeta; timeoutMs: number }> = [];
  const bus: Pick<Bus, 'request'> = {
    request: async (operation, payload, m, timeoutMs) => {
      sent.push({ operation, payload, meta: m, timeoutMs });
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { bus, sent };
}

const failureOf = async (answer: RpcReply | Error): Promise<CallError> => {
  const { bus } = busAnswering(answer);
  const err = await caller(bus, config, meta)(lookup, { partner_id: 3 }, { what: 'partner 3' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof CallError)) throw new Error(`expected a CallError, got ${String(err)}`);
  return err;
};

describe('a call to another service', () => {
  it("sends the body for the caller's organization, user and request, without the operation key, and answers the parsed reply", async () => {
    const { bus, sent } = busAnswering({ ok: true, status: 200, body: { message: 'ok', partner: { id: 3, name: 'Acme', extra: 1 } } });
    const reply = await caller(bus, config, meta)(lookup, { partner_id: 3 });
    expect(reply).toEqual({ message: 'ok', partner: { id: 3, name: 'Acme' } });
    expect(sent).toEqual([
      {
        operation: 'partners.test.lookup',
        payload: { partner_id: 3, org_id: '7' },
        meta: { orgId: 7, userId: 'u1', requestId: 'r1' },
        timeoutMs: downstreamTimeoutMs(config),
      },
    ]);
  });

  it('waits as long as it is told, and reads only what it is told to', async () => {
    const { bus, sent } = busAnswering({ ok: true, status: 200, body: { message: 'ok', partner: { id: 3 } } });
    const reply = await caller(bus, config, meta)(lookup, { partner_id: 3 }, { timeoutMs: 123, reads: z.object({ message: z.string() }) });
    expect(reply).toEqual({ message: 'ok' });
    expect(sent[0]!.timeoutMs).toBe(123);
  });

  it.each([
    ['timeout', 'timeout', 504, 'timeout'],
    ['lost', 'lost', 503, 'service_unavailable'],
    ['unroutable', 'not_sent', 503, 'service_unavailable'],
    ['unavailable', 'not_sent', 503, 'service_unavailable'],
  ] as const)('maps a bus failure (%s) to %s: %i %s', async (kind, failure, status, code) => {
    const err = await failureOf(new BusError(kind, 'what the bus said'));
    expect(err).toMatchObject({ failure, status, code, detail: 'what the bus said', operation: 'partners.test.lookup' });
    expect(err.message).toBe('The partners service could not be asked for partner 3: what the bus said; retry later');
    expect(err.mayHaveRun).toBe(failure !== 'not_sent');
  });

  it.each([500, 503, 504])("maps the remote's %i to 503 service_unavailable, keeping its status", async (remote) => {
    const err = await failureOf({ ok: false, status: remote, code: 'internal_error', message: 'it broke' });
    expect(err).toMatchObject({ failure: 'failed', status: 503, code: 'service_unavailable', remoteStatus: remote, detail: 'it broke' });
    expect(err.mayHaveRun).toBe(true);
  });

  it("passes a remote's refusal through as it came: status, code, message, errors, and whether it is transient", async () => {
    const errors = [{ field: 'partner_id', message: 'Partner 3 not found' }];
    const refused = await failureOf({ ok: false, status: 400, code: 'not_found', message: 'Partner 3 not found', errors });
    expect(refused).toMatchObject({ failure: 'refused', status: 400, code: 'not_found', message: 'Partner 3 not found', errors });
    expect([refused.transient, refused.mayHaveRun]).toEqual([false, false]);
    const busy = await failureOf({ ok: false, status: 400, code: 'invalid_state', message: 'busy', transient: true });
    expect(busy.transient).toBe(true);
  });

  it('lets any other error through, and fails loudly on a reply its contract refuses', async () => {
    const { bus } = busAnswering(new TypeError('a bug'));
    await expect(caller(bus, config, meta)(lookup, { partner_id: 3 })).rejects.toThrow(TypeError);
    const broken = busAnswering({ ok: true, status: 200, body: { message: 'ok' } });
    const err = await caller(broken.bus, config, meta)(lookup, { partner_id: 3 }).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(CallError);
    expect((err as Error).message).toContain('partners.test.lookup answered a body its contract refuses');
  });
});
