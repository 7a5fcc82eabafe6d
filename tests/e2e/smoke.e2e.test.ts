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
    const created = await sys.post('/crm/editpatner', { org_id: '1', userid: 'u1', action: 'create', partnername: 'Acme', partner_type: 'customer' });
    expect(created.statusCode).toBe(200);
    const listed = await sys.post('/crm/partners', { org_id: '1' });
    expect(listed.body.partners.map((p: { partnername: string }) => p.partnername)).toEqual(['Acme']);
  });
});
