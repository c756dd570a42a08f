import { describe, expect, it } from 'vitest';
import type { Context } from 'koa';
import { PageQuery, pageOf, paginationLinks, paginationMeta } from './pagination';
import { parseInclude, parseSort } from './query';
import { document } from './document';

describe('pagination', () => {
  it('defaults to page 1 of 20 and clamps the size to 100', () => {
    expect(pageOf(PageQuery.parse({}))).toEqual({ number: 1, size: 20, offset: 0 });
    expect(pageOf(PageQuery.parse({ 'page[number]': '3', 'page[size]': '500' }))).toEqual({
      number: 3,
      size: 100,
      offset: 200,
    });
  });

  it('refuses zero, negatives, fractions and huge numbers', () => {
    for (const v of ['0', '-1', '1.5', 'x', '9999999999', ''])
      expect(PageQuery.safeParse({ 'page[number]': v }).success, v).toBe(false);
  });

  it('computes kaminari-style meta, including a page past the end', () => {
    expect(paginationMeta({ number: 2, size: 10, offset: 10 }, 25)).toEqual({
      'current-page': 2,
      'page-size': 10,
      'prev-page': 1,
      'next-page': 3,
      'total-pages': 3,
      'total-count': 25,
    });
    expect(paginationMeta({ number: 1, size: 20, offset: 0 }, 0)).toMatchObject({
      'total-pages': 1,
      'prev-page': null,
      'next-page': null,
    });
    expect(paginationMeta({ number: 999, size: 100, offset: 99800 }, 1)).toEqual({
      'current-page': 999,
      'page-size': 100,
      'prev-page': null,
      'next-page': null,
      'total-pages': 1,
      'total-count': 1,
    });
  });

  it('builds absolute, percent-encoded links that keep the other parameters', () => {
    const ctx = {
      path: '/api/v2/organizations/a%20b/agent-pools',
      query: { q: 'x y', 'page[number]': '2', access_token: 'secret' },
    } as unknown as Context;
    const links = paginationLinks(ctx, 'http://h:1', paginationMeta({ number: 2, size: 1, offset: 1 }, 3));
    expect(links.self).toBe(
      'http://h:1/api/v2/organizations/a%20b/agent-pools?q=x+y&page%5Bnumber%5D=2&page%5Bsize%5D=1',
    );
    expect(links.prev).toContain('page%5Bnumber%5D=1');
    expect(links.last).toContain('page%5Bnumber%5D=3');
    expect(JSON.stringify(links)).not.toContain('secret');
  });
});

describe('query parameters', () => {
  it('parses sort with a leading hyphen and refuses others with 400', () => {
    expect(parseSort('-name', ['name', 'created-at'])).toEqual({ field: 'name', descending: true });
    expect(parseSort(undefined, ['name'])).toBeUndefined();
    expect(() => parseSort('size', ['name'])).toThrow(/sort=size/);
    expect(() => parseSort(['name', 'name'], ['name'])).toThrow(/once/);
  });

  it('parses include lists and refuses unknown names', () => {
    expect([...parseInclude('workspaces', ['workspaces'])]).toEqual(['workspaces']);
    expect(parseInclude(undefined, ['workspaces']).size).toBe(0);
    expect(() => parseInclude('workspaces,agents', ['workspaces'])).toThrow(/include=agents/);
  });
});

describe('documents', () => {
  it('adds included only when asked for, without duplicates or primary resources', () => {
    const a = { type: 't', id: '1' };
    const b = { type: 'u', id: '2' };
    expect(document(a)).toEqual({ data: a });
    expect(document([a], { included: [b, b, a] })).toEqual({ data: [a], included: [b] });
  });
});
