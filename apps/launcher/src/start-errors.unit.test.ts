import { explainStartError } from './start-errors';

describe('npm start failures read as one sentence', () => {
  it('says which port is taken and what to set', () => {
    expect(explainStartError(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', port: 3000 }), {})).toBe(
      'Port 3000 is already in use, so the API cannot listen on it: stop what uses it, or set PORT to a free port.',
    );
  });

  it('names a missing module and the command that brings it', () => {
    const err = Object.assign(new Error("Cannot find module '@bo/runtime'\nRequire stack: ..."), { code: 'MODULE_NOT_FOUND' });
    expect(explainStartError(err, {})).toBe(
      'The build or install is incomplete (@bo/runtime is missing): run npm install, then npm start (it builds first).',
    );
  });

  it('tells an unreachable database from an unreachable broker', () => {
    expect(explainStartError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), {})).toMatch(
      /^Cannot reach PostgreSQL at DATABASE_URL/,
    );
    expect(explainStartError(new Error('RabbitMQ unreachable: connect ECONNREFUSED'), { AMQP_URL: 'amqp://x' })).toMatch(
      /start RabbitMQ, or unset AMQP_URL/,
    );
  });

  it('passes its own readable messages on without a stack', () => {
    const text = explainStartError(
      new Error(
        'Port 54329 is already in use, so the embedded PostgreSQL cannot listen on it: stop what uses it, or set EMBEDDED_PG_PORT to a free port.',
      ),
      {},
    );
    expect(text).toBe(
      `npm start failed: ${'Port 54329 is already in use, so the embedded PostgreSQL cannot listen on it: stop what uses it, or set EMBEDDED_PG_PORT to a free port.'}`,
    );
    expect(text).not.toMatch(/\n/);
  });
});
