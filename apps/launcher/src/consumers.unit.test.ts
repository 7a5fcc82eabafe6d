import { consumers } from '@bo/contracts';
import { serviceDefinitions } from './services';

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

describe('event consumers', () => {
  // The AsyncAPI document says who receives what from the catalogue in @bo/contracts; a service
  // subscribing otherwise would make it wrong. Add or change the entry in packages/contracts/src/consumers.ts.
  it('are subscribed by the services exactly as packages/contracts/src/consumers.ts declares them', () => {
    const subscribed = Object.entries(serviceDefinitions).flatMap(([service, def]) =>
      (def.subscriptions ?? []).map((s) => ({ name: s.name, service, events: [...s.events].sort() })),
    );
    const declared = consumers.map((c) => ({ name: c.name, service: c.service, events: [...c.events].sort() }));
    expect(subscribed.sort(byName)).toEqual(declared.sort(byName));
  });
});
