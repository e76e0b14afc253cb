import { describe, expect, it } from 'vitest';
import { createRouter } from './router.js';

describe('the router', () => {
  const router = createRouter([
    { method: 'GET', path: '/pets', endpoint: 'listPets' },
    { method: 'POST', path: '/pets', endpoint: 'createPet' },
    { method: 'GET', path: '/pets/{petId}', endpoint: 'getPet' },
    { method: 'GET', path: '/docs/', endpoint: 'docs' },
  ]);

  it('finds static and templated routes, with their path parameters', () => {
    expect(router.match('GET', '/pets')).toEqual({ endpoint: 'listPets', params: {} });
    expect(router.match('POST', '/pets')).toEqual({ endpoint: 'createPet', params: {} });
    expect(router.match('GET', '/pets/42')).toEqual({ endpoint: 'getPet', params: { petId: '42' } });
  });

  it('serves HEAD with the GET endpoint', () => {
    expect(router.match('HEAD', '/pets/7')).toEqual({ endpoint: 'getPet', params: { petId: '7' } });
  });

  it('percent-decodes path parameters and keeps undecodable ones as sent', () => {
    expect(router.match('GET', '/pets/%34%32')).toMatchObject({ params: { petId: '42' } });
    expect(router.match('GET', '/pets/%zz')).toMatchObject({ params: { petId: '%zz' } });
  });

  it('lists the allowed methods, sorted and with HEAD, for a known path with another method', () => {
    expect(router.match('DELETE', '/pets')).toEqual({ endpoint: undefined, allow: 'GET, HEAD, POST', path: '/pets' });
    expect(router.match('PUT', '/pets/1')).toEqual({ endpoint: undefined, allow: 'GET, HEAD', path: '/pets/{petId}' });
  });

  it('matches paths exactly: no trailing slash, no extra or empty segments', () => {
    for (const path of ['/pets/', '/pets/1/', '/pets//1', '/pets/1/photos', '/Pets', '', '/docs']) {
      expect(router.match('GET', path), path).toBeUndefined();
    }
  });

  it('refuses to compile the same route twice', () => {
    expect(() =>
      createRouter([
        { method: 'GET', path: '/a', endpoint: 1 },
        { method: 'GET', path: '/a', endpoint: 2 },
      ]),
    ).toThrow(/Duplicate route GET \/a/);
  });
});
