import { baseConfigSchema, ConfigError, loadConfig } from './config';

describe('configuration', () => {
  it('applies defaults and coerces numbers', () => {
    const config = loadConfig(baseConfigSchema, { DATABASE_URL: 'postgres://x@h/db', RPC_TIMEOUT_MS: '2500' });
    expect(config).toMatchObject({ BUS_PREFIX: 'bo', LOG_LEVEL: 'info', RPC_TIMEOUT_MS: 2500 });
    expect(config.AMQP_URL).toBeUndefined();
  });

  it('stops with a message naming every bad variable', () => {
    const load = () => loadConfig(baseConfigSchema, { DATABASE_URL: 'mysql://x', RPC_TIMEOUT_MS: 'soon', BUS_PREFIX: 'a b' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/DATABASE_URL: must be a postgres:\/\/ URL/);
    expect(load).toThrow(/RPC_TIMEOUT_MS/);
    expect(load).toThrow(/BUS_PREFIX/);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig(baseConfigSchema, { DATABASE_URL: 'postgres://x@h/db', AMQP_URL: '' }).AMQP_URL).toBeUndefined();
  });

  it('takes AMQP_URL as one node or a list of nodes, and the queue type', () => {
    const base = { DATABASE_URL: 'postgres://x@h/db' };
    expect(loadConfig(baseConfigSchema, base).BUS_QUEUE_TYPE).toBe('classic');
    const config = loadConfig(baseConfigSchema, { ...base, AMQP_URL: 'amqp://h1:5682,amqp://h2:5683', BUS_QUEUE_TYPE: 'quorum' });
    expect(config).toMatchObject({ AMQP_URL: 'amqp://h1:5682,amqp://h2:5683', BUS_QUEUE_TYPE: 'quorum' });
    expect(() => loadConfig(baseConfigSchema, { ...base, AMQP_URL: 'amqp://h1,h2' })).toThrow(/AMQP_URL: must be an amqp:\/\/ URL/);
    expect(() => loadConfig(baseConfigSchema, { ...base, BUS_QUEUE_TYPE: 'stream' })).toThrow(/BUS_QUEUE_TYPE/);
  });
});
