import { defineEvent } from '@bo/contracts';
import { z } from 'zod';

/** An event of any type and data, for tests of the outbox and the bus themselves. */
export const anyEvent = (type: string) => defineEvent({ type, summary: type, data: z.record(z.string(), z.unknown()) });
