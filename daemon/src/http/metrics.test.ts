import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { routeLabel } from './metrics';

const request = (path: string, matched?: string) => ({ path, _matchedRoute: matched }) as unknown as Context;

describe('routeLabel', () => {
  it('labels a routed request by the template it matched', () => {
    expect(routeLabel(request('/api/v1/box/acme/base', '/api/v1/box/:username/:name'))).toBe(
      '/api/v1/box/:username/:name',
    );
  });

  it('labels each path answered outside the routers by itself: the root paths of the route table without parameters', () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/ca.pem', '/ca.crt', '/.well-known/terraform.json'])
      expect(routeLabel(request(path))).toBe(path);
  });

  it('labels the UI as one, and any other path no route matched as unmatched (a bounded number of series)', () => {
    for (const path of ['/', '/ui', '/ui/boxes/acme']) expect(routeLabel(request(path))).toBe('/ui');
    for (const path of ['/uploads/secret', '/acme/base', '/:org/:box', '/healthz/x', '/wp-login.php'])
      expect(routeLabel(request(path))).toBe('unmatched');
  });
});
