import { startTestSystem, type TestSystem } from '../support/system';

describe('system smoke', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await startTestSystem();
  });
  afterAll(async () => {
    await sys?.stop();
  });

  it('creates and lists a partner through the gateway over RabbitMQ', async () => {
    const created = await sys.client.partners.partner.create({ org_id: '1', userid: 'u1', partnername: 'Acme', partner_type: 'customer' });
    expect(created.partner.partnername).toBe('Acme');
    const listed = await sys.client.partners.partner.list({ org_id: '1' });
    expect(listed.partners.map((p) => p.partnername)).toEqual(['Acme']);
  });
});
