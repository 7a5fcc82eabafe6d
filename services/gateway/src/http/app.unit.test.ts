import { pathOf } from './app';

describe('the path of a request target', () => {
  it('is what Express reads as req.path: the target up to its query or fragment', () => {
    expect(pathOf('/crm/partners')).toBe('/crm/partners');
    expect(pathOf('/crm/partners/?page=2&x=?')).toBe('/crm/partners/');
    expect(pathOf('/crm/partners#top')).toBe('/crm/partners');
    expect(pathOf('/')).toBe('/');
  });

  it('reads an absolute-form target, and leaves anything else as it is', () => {
    expect(pathOf('http://gateway.test:3000/crm/partners?x=1')).toBe('/crm/partners');
    expect(pathOf('*')).toBe('*');
  });
});
