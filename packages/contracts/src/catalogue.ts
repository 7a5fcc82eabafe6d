import { catalogEvents, catalogOperations } from './catalog';
import type { EventDef } from './events';
import { integrationsEvents, integrationsOperations } from './integrations';
import {
  bankOperations,
  booksOperations,
  dunningEvents,
  dunningOperations,
  exchangeRateOperations,
  inboundEvents,
  inboundOperations,
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
  ...booksOperations,
  ...bankOperations,
  ...dunningOperations,
  ...inboundOperations,
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
  ...inboundEvents,
  ...dunningEvents,
  ...integrationsEvents,
];

export const operationsByName: ReadonlyMap<string, Operation> = new Map(operations.map((op) => [op.name, op]));

export function normalizePath(path: string): string {
  // Nearly every request's path has no trailing slash: it is answered without a regular expression.
  if (path.length > 0 && path.charCodeAt(path.length - 1) !== 0x2f) return path;
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

/**
 * A path's candidates by the kind of their selector, in the candidates' order, so that picking the
 * operation of a request (resolveOperation, on every request) filters and maps nothing.
 */
interface PathChoices {
  candidates: readonly Operation[];
  /** The candidates selected by `action`, and their actions. */
  byAction: ReadonlyArray<Operation & { select: { action: string } }>;
  actions: readonly string[];
  byFlag: ReadonlyArray<Operation & { select: { flag: string } }>;
  byPresent: ReadonlyArray<Operation & { select: { present: string } }>;
  fallback?: Operation;
}

const choicesByPath = new Map<string, PathChoices>();
for (const [path, candidates] of candidatesByPath) {
  const byAction = candidates.filter((op): op is Operation & { select: { action: string } } => 'action' in op.select);
  choicesByPath.set(path, {
    candidates,
    byAction,
    actions: byAction.map((op) => op.select.action),
    byFlag: candidates.filter((op): op is Operation & { select: { flag: string } } => 'flag' in op.select),
    byPresent: candidates.filter((op): op is Operation & { select: { present: string } } => 'present' in op.select),
    fallback: candidates.find((op) => 'default' in op.select),
  });
}

/** The largest body an operation on `path` takes (Operation.maxBodyBytes), undefined when none states one. */
const largestBodyByPath = new Map<string, number>();
for (const [path, candidates] of candidatesByPath) {
  const largest = Math.max(0, ...candidates.map((op) => op.maxBodyBytes ?? 0));
  if (largest > 0) largestBodyByPath.set(path, largest);
}

/**
 * How many bytes of body the gateway reads on `path`: the largest an operation there states, else
 * (or when it is larger) `defaultLimit`. Once the body names its operation, bodyLimitOf holds it to
 * that operation's own.
 */
export function pathBodyLimit(path: string, defaultLimit: number): number {
  return Math.max(defaultLimit, largestBodyByPath.get(normalizePath(path)) ?? 0);
}

/** The largest body `op` takes: what it states, else (or when it is larger) `defaultLimit`. */
export function bodyLimitOf(op: Pick<Operation, 'maxBodyBytes'>, defaultLimit: number): number {
  return Math.max(defaultLimit, op.maxBodyBytes ?? 0);
}

/** How long the gateway waits for `op`'s answer: what it states (Operation.timeoutMs), else (or when it is longer) `configured`. */
export function rpcTimeoutOf(op: Pick<Operation, 'timeoutMs'>, configured: number): number {
  return Math.max(configured, op.timeoutMs ?? 0);
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
  const choices = choicesByPath.get(normalizePath(path));
  if (!choices) return { kind: 'unknown_path' };
  const action = body['action'];
  if (action !== undefined && choices.actions.length > 0) {
    const match = choices.byAction.find((op) => op.select.action === action);
    if (match) return { kind: 'operation', operation: match };
    return {
      kind: 'unknown_action',
      allowed: [...choices.actions],
      message: `Unknown action ${describeAction(action)} on ${normalizePath(path)}; allowed actions: ${choices.actions.join(', ')}`,
    };
  }
  let flagged: Operation | undefined;
  for (const op of choices.byFlag) {
    if (body[op.select.flag] !== true) continue;
    if (flagged) {
      const flags = choices.byFlag
        .filter((o) => body[o.select.flag] === true)
        .map((o) => describeSelector(o.select))
        .join(', ');
      return {
        kind: 'unknown_action',
        allowed: [...choices.actions],
        message: `Only one operation flag may be set at a time; got ${flags}`,
      };
    }
    flagged = op;
  }
  if (flagged) return { kind: 'operation', operation: flagged };
  const present = choices.byPresent.find((op) => body[op.select.present] !== undefined && body[op.select.present] !== null);
  if (present) return { kind: 'operation', operation: present };
  if (choices.fallback) return { kind: 'operation', operation: choices.fallback };
  const selectors = choices.candidates.map((op) => describeSelector(op.select));
  return {
    kind: 'unknown_action',
    allowed: [...choices.actions],
    message: `${normalizePath(path)} needs one of: ${selectors.join(', ')}`,
  };
}

/** The action a client sent, as a message may quote it: short, printable, and never serialized whole (it may be nested 100,000 deep). */
function describeAction(action: unknown): string {
  if (typeof action === 'string') return `"${printable(action, 64)}"`;
  if (typeof action === 'number' || typeof action === 'boolean' || action === null) return String(action);
  return Array.isArray(action) ? 'an array' : 'an object';
}
