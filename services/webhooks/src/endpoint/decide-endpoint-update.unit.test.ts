import { routedTypes } from '../delivery/routes';
import { decideEndpointUpdate, patternsRoutedBy, updatedEndpoint } from './decide-endpoint-update';
import type { EndpointRow } from './endpoint.record';

describe('deciding an update of a webhook endpoint', () => {
  const now = new Date('2026-11-29T12:00:00Z');
  const endpoint = (over: Partial<EndpointRow> = {}): EndpointRow => ({
    id: 5,
    org_id: 1,
    url: 'https://hooks.example.com/in',
    description: 'CRM',
    events: ['partners.*'],
    status: 'enabled',
    disabled_reason: null,
    disabled_at: null,
    failing_since: null,
    secret: 'sealed',
    previous_secret: null,
    previous_secret_expires_at: null,
    version: 3,
    created_at: new Date('2026-11-01T00:00:00Z'),
    updated_at: new Date('2026-11-02T00:00:00Z'),
    deleted_at: null,
    ...over,
  });
  const disabled = endpoint({
    status: 'disabled',
    disabled_reason: 'failing',
    disabled_at: new Date('2026-11-20T00:00:00Z'),
    failing_since: new Date('2026-11-17T00:00:00Z'),
  });

  it('given an endpoint, when its URL, events and description change, then those are written, the description trimmed', () => {
    expect(
      decideEndpointUpdate(
        endpoint(),
        { url: 'https://x.example.com/h', events: ['catalog.*'], description: '  ERP ' },
        routedTypes(['catalog.*']),
        now,
      ),
    ).toEqual({ url: 'https://x.example.com/h', events: ['catalog.*'], description: 'ERP' });
  });

  it('given a description, when updated to blank or to null, then the endpoint has none', () => {
    expect(decideEndpointUpdate(endpoint(), { description: '   ' }, [], now)).toEqual({ description: null });
    expect(decideEndpointUpdate(endpoint(), { description: null }, [], now)).toEqual({ description: null });
  });

  it('given an enabled endpoint, when disabled, then it is off by hand since now; when disabled again, nothing of it changes', () => {
    expect(decideEndpointUpdate(endpoint(), { status: 'disabled' }, [], now)).toEqual({
      status: 'disabled',
      disabled_reason: 'manual',
      disabled_at: now,
    });
    expect(decideEndpointUpdate(disabled, { status: 'disabled' }, [], now)).toEqual({});
  });

  it('given an endpoint disabled for failing, when enabled again, then why it was off and its failing streak are cleared', () => {
    expect(decideEndpointUpdate(disabled, { status: 'enabled' }, routedTypes(['partners.*']), now)).toEqual({
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
    });
    expect(decideEndpointUpdate(endpoint(), { status: 'enabled' }, [], now)).toEqual({});
  });

  it('given an update, when it makes the endpoint want types, then those are routed first: new events, or enabled again', () => {
    expect(patternsRoutedBy(endpoint(), { events: ['catalog.*'] })).toEqual(['catalog.*']);
    expect(patternsRoutedBy(disabled, { status: 'enabled' })).toEqual(['partners.*']);
    expect(patternsRoutedBy(disabled, { status: 'enabled', events: ['catalog.*'] })).toEqual(['catalog.*']);
    // Nothing more is wanted: the same events, a description, a disabled endpoint's events, disabling.
    expect(patternsRoutedBy(endpoint(), { description: 'x' })).toBeUndefined();
    expect(patternsRoutedBy(disabled, { events: ['catalog.*'] })).toBeUndefined();
    expect(patternsRoutedBy(endpoint(), { status: 'disabled', events: ['catalog.*'] })).toBeUndefined();
  });

  it('given the types routed for the endpoint as read, when it was disabled meanwhile and is now enabled by the update, then it is gathered again', () => {
    const routedWhenRead: string[] = [];
    expect(() => decideEndpointUpdate(disabled, { status: 'enabled' }, routedWhenRead, now)).toThrow(
      expect.objectContaining({
        status: 503,
        code: 'service_unavailable',
        stale: true,
        message: 'Webhook endpoint 5 changed meanwhile; retry',
      }),
    );
    // Routed already for what it wants: it stands.
    expect(() => decideEndpointUpdate(disabled, { status: 'enabled' }, routedTypes(['partners.*', 'catalog.*']), now)).not.toThrow();
  });

  it('given changes, when stored, then the endpoint is the row read with them, at its next version', () => {
    const stored = updatedEndpoint(disabled, decideEndpointUpdate(disabled, { status: 'enabled', events: ['*'] }, routedTypes(['*']), now));
    expect(stored).toMatchObject({
      status: 'enabled',
      events: ['*'],
      disabled_reason: null,
      failing_since: null,
      version: 4,
      url: disabled.url,
    });
  });
});
