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
});
