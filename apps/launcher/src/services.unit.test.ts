import { operations } from '@bo/contracts';
import { serviceDefinitions } from './services';

/**
 * Every operation of the contract catalogue has its handler in the service the contract names, once.
 * A forgotten registration would otherwise pass the type check and the unit tests and show only
 * when a request came: "No service serves …" under test, a 503 through the gateway.
 */
describe('the services serve the catalogue', () => {
  it.each(Object.entries(serviceDefinitions))(
    '%s registers one handler for each of its operations and none of another service',
    (name, def) => {
      const registered = def.handlers.map((h) => h.operation.name);
      const expected = operations.filter((op) => op.service === name).map((op) => op.name);
      expect([...registered].sort()).toEqual([...expected].sort());
    },
  );
});
