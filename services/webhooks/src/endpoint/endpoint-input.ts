import { events } from '@bo/contracts';
import { AppError } from '@bo/runtime';
import { patternProblems } from '../domain/patterns';
import { resolveTarget, settingsResolver, type Resolver } from '../delivery/target';
import { webhookSettings } from '../settings';
import { endpointRefusals } from './endpoint-refusals';

/**
 * The rules beyond an endpoint's schema: each of `events` names some event type, and the URL is
 * https (or http where allowed) and its host resolves, to no refused address. A host that does not
 * resolve is refused (400); one whose nameservers do not answer in time is a retryable 503, since
 * the fault may be ours. Every delivery checks the address again anyway.
 */
export async function checkEndpointInput(
  input: { url?: string; events?: readonly string[] },
  config: object,
  resolve: Resolver = settingsResolver(webhookSettings(config)),
): Promise<void> {
  if (input.events) {
    const problems = patternProblems(
      input.events,
      events.map((e) => e.type),
    );
    if (problems.length) throw endpointRefusals.eventsNameNoType(problems);
  }
  if (input.url !== undefined) {
    const target = await resolveTarget(new URL(input.url), webhookSettings(config), resolve);
    if (target.ok) return;
    if (target.lookup === 'unanswered')
      throw new AppError(503, 'service_unavailable', `The host of url could not be looked up now (${target.problem}); retry`).asTransient();
    throw endpointRefusals.urlRefused(target.problem);
  }
}
