import { events } from '@bo/contracts';
import { validationFailed } from '@bo/runtime';
import { patternProblems } from '../domain/patterns';
import { resolveTarget, type Resolver } from '../delivery/target';
import { webhookSettings } from '../settings';

/**
 * The rules beyond an endpoint's schema: each of `events` names some event type, and the URL is
 * https (or http where allowed) and does not resolve to a refused address. A host that does not
 * resolve now is taken (it may exist tomorrow); every delivery checks the address again anyway.
 */
export async function checkEndpointInput(
  input: { url?: string; events?: readonly string[] },
  config: object,
  resolve?: Resolver,
): Promise<void> {
  if (input.events) {
    const problems = patternProblems(
      input.events,
      events.map((e) => e.type),
    );
    if (problems.length)
      throw validationFailed(
        'Some events name no event type',
        problems.map((p) => ({ field: `events.${p.index}`, message: p.message })),
      );
  }
  if (input.url !== undefined) {
    const target = await resolveTarget(new URL(input.url), webhookSettings(config), resolve);
    if (!target.ok && !target.unresolved) throw validationFailed(`url ${target.problem}`, [{ field: 'url', message: target.problem }]);
  }
}
