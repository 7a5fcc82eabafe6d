import { accessLogFields, routeLabel } from './observe';

describe('request observation', () => {
  it('labels a request by its operation path or known route, and anything else as other', () => {
    expect(routeLabel('/crm/editpatner')).toBe('/crm/editpatner');
    expect(routeLabel('/crm/editpatner/')).toBe('/crm/editpatner');
    expect(routeLabel('/health')).toBe('/health');
    expect(routeLabel('/metrics')).toBe('/metrics');
    expect(routeLabel('/no/such/path/12345')).toBe('other');
  });

  it('writes method, path, status, ms (to a tenth), request id and organization', () => {
    expect(accessLogFields({ method: 'POST', path: '/crm/partners' }, 200, 12.345, { requestId: 'r1', orgId: 3 })).toEqual({
      method: 'POST',
      path: '/crm/partners',
      status: 200,
      ms: 12.3,
      request_id: 'r1',
      org_id: 3,
    });
    expect(accessLogFields({ method: 'GET', path: '/health' }, 503, 0.04, { requestId: 'r2' })).toEqual({
      method: 'GET',
      path: '/health',
      status: 503,
      ms: 0,
      request_id: 'r2',
      org_id: undefined,
    });
  });
});
