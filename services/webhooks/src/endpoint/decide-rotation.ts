import type { EndpointRow } from './endpoint.record';

/** The columns a rotation of an endpoint's signing secret writes. */
export interface Rotation {
  /** The new secret, sealed: it signs from now on. */
  secret: string;
  /** The secret it replaces, still sealed: it keeps signing beside the new one until the overlap ends. */
  previous_secret: string;
  previous_secret_expires_at: Date;
}

/**
 * A rotation, decided: the new secret (`sealed`, as the endpoint stores it) signs from now on, and the
 * one it replaces keeps signing beside it for `overlapMs` from `now`, so a receiver can switch without
 * losing a delivery. Only the secret replaced is kept: a second rotation within the overlap drops the
 * oldest.
 */
export function decideRotation(endpoint: Pick<EndpointRow, 'secret'>, sealed: string, now: Date, overlapMs: number): Rotation {
  return { secret: sealed, previous_secret: endpoint.secret, previous_secret_expires_at: new Date(now.getTime() + overlapMs) };
}
