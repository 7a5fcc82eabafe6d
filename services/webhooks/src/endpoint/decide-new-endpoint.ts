import type { EndpointRow } from './endpoint.record';

/** The columns a new endpoint is inserted with; the database makes the rest (id, times, defaults). */
export interface NewEndpoint {
  org_id: number;
  url: string;
  description: string | null;
  events: readonly string[];
  /** Its signing secret, sealed (secret-box.ts): the endpoint never stores it in the clear. */
  secret: string;
}

/**
 * A new endpoint, decided from the request alone: the organization's, with the URL and the events
 * asked for, the description as given (none when absent), and the signing secret `sealed`.
 */
export function decideNewEndpoint(
  req: { url: string; events: readonly string[]; description?: string | null },
  orgId: number,
  sealed: string,
): NewEndpoint {
  return { org_id: orgId, url: req.url, description: req.description ?? null, events: req.events, secret: sealed };
}

/**
 * The endpoint as its insert stores it, given what the database makes (its `id`, the time `at` it
 * was created): enabled, at version 1, with no rotation under way.
 */
export function newEndpointAsStored(row: NewEndpoint, id: number, at: Date): EndpointRow {
  return {
    ...row,
    events: [...row.events],
    id,
    status: 'enabled',
    disabled_reason: null,
    disabled_at: null,
    failing_since: null,
    previous_secret: null,
    previous_secret_expires_at: null,
    version: 1,
    created_at: at,
    updated_at: at,
    deleted_at: null,
  };
}
