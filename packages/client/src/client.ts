import { operations, type CatalogueOperation, type Operation, type ReplyOutputOf, type RequestInputOf } from '@bo/contracts';
import { Transport, type CallOptions, type ClientOptions } from './transport';

/**
 * One method per operation of the catalogue, named after the operation, its segments as namespaces
 * and the last in camelCase: `partners.partner.create` is `client.partners.partner.create(body)`,
 * `invoicing.invoice.register_payment` is `client.invoicing.invoice.registerPayment(body)`. Both the methods and their types are derived
 * from the catalogue, so a new operation appears here by itself. Internal operations (no HTTP path)
 * are left out.
 */
export type PublicOperation = Exclude<CatalogueOperation, { paths: readonly [] }>;
export type OperationName = PublicOperation['name'];
export type OperationNamed<N extends OperationName> = Extract<PublicOperation, { name: N }>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The field that picks the operation on its path, which the client fills in itself. */
type SelectorField<O extends Operation> = O['select'] extends { action: string }
  ? 'action'
  : O['select'] extends { flag: infer F extends string }
    ? F
    : never;

/** `T` with the fields `K` optional; distributes over a union, so a request schema may be one. */
type OptionalFields<T, K extends PropertyKey> = T extends unknown ? Simplify<Omit<T, K> & Partial<Pick<T, K & keyof T>>> : never;

/** The request as the caller writes it (numbers or numeric strings, as the API accepts); `action` and operation flags are optional. */
export type RequestBody<O extends Operation> = OptionalFields<RequestInputOf<O>, SelectorField<O>>;
export type ReplyBody<O extends Operation> = ReplyOutputOf<O>;

export type OperationMethod<O extends Operation> = (body: RequestBody<O>, options?: CallOptions) => Promise<ReplyBody<O>>;

/** `register_payment` → `registerPayment`. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** The operations named `Prefix` + one of `Names`: a namespace per first segment, a method per last one. */
type Level<Names extends string, Prefix extends string> = {
  [Head in Names extends `${infer H}.${string}` ? H : never]: Level<
    Names extends `${Head}.${infer Rest}` ? Rest : never,
    `${Prefix}${Head}.`
  >;
} & {
  [Last in Names extends `${string}.${string}` ? never : Names as CamelCase<Last>]: OperationMethod<
    OperationNamed<`${Prefix}${Last}` & OperationName>
  >;
};

export type OperationTree = Level<OperationName, ''>;

export type Client = OperationTree & {
  /** Calls an operation by its catalogue name, for code that picks the operation at run time. */
  call<N extends OperationName>(
    name: N,
    body: RequestBody<OperationNamed<N>>,
    options?: CallOptions,
  ): Promise<ReplyBody<OperationNamed<N>>>;
};

export function camelCase(segment: string): string {
  return segment.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Where an operation's method sits in the client: its name's segments, the last in camelCase. */
export function methodPath(name: string): string[] {
  const segments = name.split('.');
  if (segments.some((s) => s === '')) throw new Error(`Operation name ${name} has an empty segment`);
  return segments.map((s, i) => (i === segments.length - 1 ? camelCase(s) : s));
}

export function createClient(options: ClientOptions): Client {
  const transport = new Transport(options);
  const byName = new Map<string, Operation>();
  const tree: Record<string, unknown> = {};
  for (const op of operations) {
    if (op.paths.length === 0) continue;
    const path = methodPath(op.name);
    const method = path.pop() as string;
    let node = tree;
    for (const segment of path) node = (node[segment] ??= {}) as Record<string, unknown>;
    if (node[method] !== undefined || (path.length === 0 && method === 'call'))
      throw new Error(`Operation ${op.name} clashes with another method of the client`);
    node[method] = (body: object, callOptions?: CallOptions) => transport.call(op, body, callOptions);
    byName.set(op.name, op);
  }
  const call = (name: string, body: object, callOptions?: CallOptions) => {
    const op = byName.get(name);
    if (!op) return Promise.reject(new Error(`Unknown operation ${name}`));
    return transport.call(op, body, callOptions);
  };
  return { ...tree, call } as unknown as Client;
}
