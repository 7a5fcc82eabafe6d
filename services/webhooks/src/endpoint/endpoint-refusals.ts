import { defineRefusals } from '@bo/runtime';

/** Every refusal of the endpoint module, by name: what its handlers throw, and what its tests assert. */
export const endpointRefusals = defineRefusals('endpoint', {
  /** No live webhook endpoint of the organization by that id (another organization's, or a deleted one, is not found either). */
  endpointNotFound: (endpointId: number) => ({ code: 'not_found', message: `Webhook endpoint ${endpointId} not found` }),
  /** Patterns of `events` that name no event type, each named with what is wrong with it. */
  eventsNameNoType: (problems: ReadonlyArray<{ index: number; message: string }>) => ({
    code: 'validation_failed',
    message: 'Some events name no event type',
    errors: problems.map((p) => ({ field: `events.${p.index}`, message: p.message })),
  }),
  /** A url that is no allowed target: not https (where http is not allowed), a host that does not resolve, or a refused address. */
  urlRefused: (problem: string) => ({
    code: 'validation_failed',
    message: `url ${problem}`,
    errors: [{ field: 'url', message: problem }],
  }),
  /** A test webhook asked of a disabled endpoint. */
  endpointDisabled: (endpointId: number) => ({
    code: 'invalid_state',
    message: `Webhook endpoint ${endpointId} is disabled; enable it (update with status "enabled") first`,
  }),
});
