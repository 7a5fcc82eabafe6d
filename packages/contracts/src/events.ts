import { z } from 'zod';

/** Body of every event on the `<prefix>.events` topic exchange; the routing key is `type`. */
export const eventEnvelopeSchema = z.object({
  id: z.string().uuid(),
  type: z.string(),
  occurred_at: z.string(),
  org_id: z.number().int(),
  data: z.record(z.string(), z.unknown()),
});
export type EventEnvelope<D = Record<string, unknown>> = Omit<z.infer<typeof eventEnvelopeSchema>, 'data'> & { data: D };

export interface EventDef<S extends z.ZodType = z.ZodType, T extends string = string> {
  type: T;
  summary: string;
  data: S;
}

/** An event's contract; its `type` stays a literal type, so a consumer bound to it is told apart by it. */
export function defineEvent<S extends z.ZodType, T extends string>(def: EventDef<S, T>): EventDef<S, T> {
  return def;
}

export type EventDataOf<E> = E extends EventDef<infer S> ? z.infer<S> : never;

/** An event as a consumer bound to its contract receives it: its literal type, its data parsed by the event's schema. */
export type EventOf<E> =
  E extends EventDef<infer S, infer T> ? Omit<EventEnvelope, 'type' | 'data'> & { type: T; data: z.output<S> } : never;
