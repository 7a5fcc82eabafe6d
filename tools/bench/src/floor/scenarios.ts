import { ORG_ID, invoiceRequest } from '../fixtures';
import type { Context, Step } from '../load';
import { validatePoolSize, type Scenario } from '../scenarios';
import type { FloorStandIn } from './launch';
import type { FloorScenario } from './shared';

/** The HTTP path of a floor scenario's step on the floor's HTTP side. */
export const floorPath = (scenario: string, step: string) => `/floor/${scenario}/${step}`;

/**
 * A floor scenario: the real scenario's requests (the ceiling's sample where it is one fixed body;
 * partners in turn and the bench's own lines for create invoice; one seeded draft per validation,
 * the pool sized as the real validate scenario sizes its own).
 */
export function floorScenario(
  floor: FloorStandIn,
  name: FloorScenario,
  sample: { title: string; step: string; request: string },
): Scenario {
  const path = floorPath(name, sample.step);
  const base = { name, title: sample.title, ceiling: name, prepare: () => Promise.resolve() };
  const fixed = (): Step[] => [{ name: sample.step, path, body: sample.request }];
  switch (name) {
    case 'list-partners':
    case 'create-partner':
      return { ...base, steps: fixed };
    case 'create-invoice':
      return {
        ...base,
        steps: () => {
          let i = 0;
          return [{ name: sample.step, path, body: () => invoiceRequest(floor.partners[i++ % floor.partners.length] as number) }];
        },
      };
    case 'validate-invoice': {
      let queue: number[] = [];
      return {
        ...base,
        // Autocannon builds each connection's next request before the run ends: spares for those.
        beforeWarmup: async (requests) => void (queue = await floor.drafts(requests + 64)),
        beforeRun: async (plan) => {
          const amount = validatePoolSize(plan);
          queue = await floor.drafts(amount + plan.connections * 2 + 16);
          return { amount, capSeconds: plan.seconds * 2 };
        },
        steps: () => [
          {
            name: sample.step,
            path,
            body: (_ctx: Context) => `{"org_id":"${ORG_ID}","id":${queue.shift() ?? 0},"validate_invoice":true}`,
          },
        ],
      };
    }
  }
}
