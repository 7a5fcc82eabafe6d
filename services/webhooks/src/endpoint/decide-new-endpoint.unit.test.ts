import { decideNewEndpoint, newEndpointAsStored } from './decide-new-endpoint';
import { endpointRecord } from './endpoint.record';

describe('deciding a new webhook endpoint', () => {
  const request = { url: 'https://hooks.example.com/in', events: ['partners.*', 'invoicing.invoice.validated'] };

  it("given a request, when decided, then the endpoint is the organization's, with its URL, its events and the secret sealed", () => {
    expect(decideNewEndpoint({ ...request, description: 'CRM' }, 7, 'v2:k1:sealed')).toEqual({
      org_id: 7,
      url: 'https://hooks.example.com/in',
      description: 'CRM',
      events: ['partners.*', 'invoicing.invoice.validated'],
      secret: 'v2:k1:sealed',
    });
  });

  it('given no description, when decided, then it has none', () => {
    expect(decideNewEndpoint(request, 7, 'sealed').description).toBeNull();
  });

  it('given a new endpoint, when stored, then it is enabled at version 1, with no rotation under way, shown without its secret', () => {
    const at = new Date('2026-11-29T12:00:00.250Z');
    const stored = newEndpointAsStored(decideNewEndpoint(request, 7, 'sealed'), 42, at);
    expect(stored).toMatchObject({ id: 42, status: 'enabled', version: 1, failing_since: null, previous_secret: null, created_at: at });
    expect(endpointRecord(stored)).toEqual({
      id: 42,
      url: 'https://hooks.example.com/in',
      description: null,
      events: ['partners.*', 'invoicing.invoice.validated'],
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      previous_secret_expires_at: null,
      version: 1,
      created_at: '2026-11-29T12:00:00',
      updated_at: '2026-11-29T12:00:00',
    });
  });
});
