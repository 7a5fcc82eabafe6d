import { catalogEvents, catalogOperations } from './catalog';
import type { EventDef } from './events';
import { integrationsEvents, integrationsOperations } from './integrations';
import {
  exchangeRateOperations,
  invoicingEvents,
  invoicingOperations,
  paymentEvents,
  paymentOperations,
  reportOperations,
} from './invoicing';
import { domainPrefix, type Operation, selectorRank, describeSelector } from './operation';
import { organizationEvents, organizationOperations } from './organization';
import { partnersEvents, partnersOperations } from './partners';
import { salesEvents, salesOperations } from './sales';
import { printable } from './shape';

/** Every operation of the system: the gateway routes from it and OpenAPI is generated from it. */
const catalogue = [
  ...partnersOperations,
  ...organizationOperations,
  ...catalogOperations,
  ...salesOperations,
  ...invoicingOperations,
  ...paymentOperations,
  ...exchangeRateOperations,
  ...reportOperations,
  ...integrationsOperations,
];
export const operations: readonly Operation[] = catalogue;
/** Every operation with its literal name, paths and selector in its type: the typed client is derived from it. */
export type CatalogueOperation = (typeof catalogue)[number];
export const events: readonly EventDef[] = [
  ...partnersEvents,
  ...organizationEvents,
  ...catalogEvents,
  ...salesEvents,
  ...invoicingEvents,
  ...paymentEvents,
  ...integrationsEvents,
];

export const operationsByName: ReadonlyMap<string, Operation> = new Map(operations.map((op) => [op.name, op]));

export function normalizePath(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/** Every path the spec shows, per domain prefix. */
const domainPaths = new Map<string, Set<string>>();
for (const op of operations) {
  const prefix = domainPrefix[op.service];
  const set = domainPaths.get(prefix) ?? new Set<string>();
  op.paths.forEach((p) => set.add(p));
  domainPaths.set(prefix, set);
}

/** Operations reachable on a path, strongest selector first. */
const candidatesByPath = new Map<string, Operation[]>();
for (const [prefix, paths] of domainPaths) {
  for (const path of paths) {
    const ops = operations
      .filter((op) => op.paths.includes(path) || (op.domainWide && domainPrefix[op.service] === prefix))
      .sort((a, b) => selectorRank(a.select) - selectorRank(b.select));
    candidatesByPath.set(path, ops);
  }
}

export function resolveCandidates(path: string): readonly Operation[] {
  return candidatesByPath.get(normalizePath(path)) ?? [];
}

export function knownPaths(): string[] {
  return [...candidatesByPath.keys()];
}

export type Resolution =
  { kind: 'operation'; operation: Operation } | { kind: 'unknown_path' } | { kind: 'unknown_action'; message: string; allowed: string[] };

/** Picks the operation a POST to `path` with `body` means, as docs/design.md section 3 describes. */
export function resolveOperation(path: string, body: Record<string, unknown>): Resolution {
  const candidates = candidatesByPath.get(normalizePath(path));
  if (!candidates) return { kind: 'unknown_path' };
  const actions = candidates.flatMap((op) => ('action' in op.select ? [op.select.action] : []));
  const action = body['action'];
  if (action !== undefined && actions.length > 0) {
    const match = candidates.find((op) => 'action' in op.select && op.select.action === action);
    if (match) return { kind: 'operation', operation: match };
    return {
      kind: 'unknown_action',
      allowed: actions,
      message: `Unknown action ${describeAction(action)} on ${normalizePath(path)}; allowed actions: ${actions.join(', ')}`,
    };
  }
  const flagged = candidates.filter((op) => 'flag' in op.select && body[op.select.flag] === true);
  if (flagged.length > 1) {
    const flags = flagged.map((op) => describeSelector(op.select)).join(', ');
    return { kind: 'unknown_action', allowed: actions, message: `Only one operation flag may be set at a time; got ${flags}` };
  }
  if (flagged[0]) return { kind: 'operation', operation: flagged[0] };
  const present = candidates.find(
    (op) => 'present' in op.select && body[op.select.present] !== undefined && body[op.select.present] !== null,
  );
  if (present) return { kind: 'operation', operation: present };
  const fallback = candidates.find((op) => 'default' in op.select);
  if (fallback) return { kind: 'operation', operation: fallback };
  const choices = candidates.map((op) => describeSelector(op.select));
  return {
    kind: 'unknown_action',
    allowed: actions,
    message: `${normalizePath(path)} needs one of: ${choices.join(', ')}`,
  };
}

/** The action a client sent, as a message may quote it: short, printable, and never serialized whole (it may be nested 100,000 deep). */
function describeAction(action: unknown): string {
  if (typeof action === 'string') return `"${printable(action, 64)}"`;
  if (typeof action === 'number' || typeof action === 'boolean' || action === null) return String(action);
  return Array.isArray(action) ? 'an array' : 'an object';
}
