import { deliveryRecord } from '../delivery/delivery.record';
import { decidePing, queuedAsStored, queuedPing } from './decide-ping';

describe('deciding a test webhook (a ping)', () => {
  const now = new Date('2026-11-29T12:00:00.400Z');
  const id = '7b0ef6c6-8a53-4a5e-9a39-0c4c1f7a1f00';
  const trace = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };

  it("given an endpoint, when pinged, then a webhook.ping of its own id is queued to it, due now, in the request's trace", () => {
    expect(queuedPing({ id: 5, org_id: 1 }, id, now, trace)).toEqual({
      org_id: 1,
      endpoint_id: 5,
      event_id: id,
      event_type: 'webhook.ping',
      payload: {
        id,
        type: 'webhook.ping',
        created_at: '2026-11-29T12:00:00',
        org_id: 1,
        data: { endpoint_id: 5, message: 'A test webhook from the back office' },
      },
      next_attempt_at: now,
      traceparent: trace.traceparent,
      tracestate: null,
    });
  });

  it('given an enabled endpoint, when pinged, then the ping is queued; given a disabled one, then it is refused', () => {
    expect(decidePing({ id: 5, org_id: 1, status: 'enabled' }, id, now, undefined)).toEqual(
      queuedPing({ id: 5, org_id: 1 }, id, now, undefined),
    );
    expect(() => decidePing({ id: 5, org_id: 1, status: 'disabled' }, id, now, undefined)).toThrow(
      expect.objectContaining({ refusal: 'endpoint.endpointDisabled', code: 'invalid_state' }),
    );
  });

  it('given a ping, when stored, then it is pending and never tried, due when it was queued', () => {
    const created = new Date('2026-11-29T12:00:01Z');
    expect(deliveryRecord(queuedAsStored(queuedPing({ id: 5, org_id: 1 }, id, now, undefined), 9, created))).toEqual({
      id: 9,
      endpoint_id: 5,
      event_id: id,
      event_type: 'webhook.ping',
      status: 'pending',
      attempts: 0,
      last_attempt_at: null,
      last_http_status: null,
      last_duration_ms: null,
      last_error: null,
      next_attempt_at: '2026-11-29T12:00:00',
      delivered_at: null,
      created_at: '2026-11-29T12:00:01',
    });
  });
});
