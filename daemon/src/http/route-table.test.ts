import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { match } from 'path-to-regexp';
import { describe, expect, it } from 'vitest';
import { AGENT, BOX, BOXYARD, MOUNTS, ROOT, TFC, isUiPath, type Route } from './route-table';
import { Urls, pathTo } from './urls';

const SRC = join(__dirname, '..');
const GROUPS: Record<string, Record<string, Route>> = { BOX, ROOT, TFC, AGENT, BOXYARD };

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

describe('the route table', () => {
  it('names each path once per group', () => {
    for (const [group, routes] of Object.entries(GROUPS)) {
      const paths = Object.values(routes).map((r) => r.path);
      expect(new Set(paths).size, group).toBe(paths.length);
    }
  });

  it('fills parameters percent-encoded, and the router matches what it fills', () => {
    const params = { username: 'a b', name: 'x/y', version: '1.0.0' };
    const path = BOX.release.fill(params);
    expect(path).toBe('/box/a%20b/x%2Fy/version/1.0.0/release');
    const m = match(BOX.release.path, { decode: decodeURIComponent })(path);
    expect(m === false ? undefined : m.params).toEqual(params);
    expect(new Urls('http://lab:4780').to('v2', BOX.release, params)).toBe(
      'http://lab:4780/api/v2/box/a%20b/x%2Fy/version/1.0.0/release',
    );
    expect(pathTo('v2', TFC.agentPool, { id: 'apool-1' })).toBe(`${MOUNTS.v2}/agent-pools/apool-1`);
    expect(() => BOX.release.fill({ username: 'a', name: 'b' } as never)).toThrow(/version/);
  });

  it('is the only place paths are written: routers register table entries, never literals', () => {
    const literal = /\b(?:r|router)\.(?:get|post|put|patch|delete|head|all)\(\s*['"`]/;
    const offenders = sources(SRC)
      .filter((f) => literal.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    expect(offenders).toEqual([]);
  });

  it('has no entry nobody serves or links to', () => {
    const code = sources(SRC)
      .filter((f) => !f.endsWith('route-table.ts'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const unused = Object.entries(GROUPS).flatMap(([group, routes]) =>
      Object.keys(routes)
        .filter((name) => !new RegExp(`\\b${group}\\.${name}\\b`).test(code))
        .map((name) => `${group}.${name}`),
    );
    expect(unused).toEqual([]);
  });
});

describe('isUiPath', () => {
  it('is `/ui`, everything under it and `/`; `/` only when root is not left out', () => {
    const ui = ['/ui', '/ui/', '/ui/boxes/acme/web', '/ui/assets/index-1a2b.js'];
    const not = ['/uix', '/ui.html', '/api/boxyard/session', '/healthz', '/acme/web', '//ui', ''];
    expect(['/', ...ui, ...not].map((p) => isUiPath(p))).toEqual([
      true,
      ...ui.map(() => true),
      ...not.map(() => false),
    ]);
    expect(['/', ...ui, ...not].map((p) => isUiPath(p, false))).toEqual([
      false,
      ...ui.map(() => true),
      ...not.map(() => false),
    ]);
  });
});
