import type { integrations } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';

export interface EndpointRow {
  id: number;
  org_id: number;
  url: string;
  description: string | null;
  events: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/** An endpoint as the API shows it: the secrets never leave the service except to sign. */
export function endpointRecord(row: EndpointRow, now: Date = new Date()): integrations.EndpointRecord {
  const overlap = row.previous_secret_expires_at && row.previous_secret_expires_at > now ? row.previous_secret_expires_at : null;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    status: row.status,
    disabled_reason: row.disabled_reason,
    disabled_at: formatDateTime(row.disabled_at),
    previous_secret_expires_at: formatDateTime(overlap),
    version: row.version,
    created_at: formatDateTime(row.created_at) as string,
    updated_at: formatDateTime(row.updated_at) as string,
  };
}
