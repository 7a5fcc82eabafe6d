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

export interface EventDef<S extends z.ZodType = z.ZodType> {
  type: string;
  summary: string;
  data: S;
}

export function defineEvent<S extends z.ZodType>(def: EventDef<S>): EventDef<S> {
  return def;
}

export type EventDataOf<E> = E extends EventDef<infer S> ? z.infer<S> : never;
