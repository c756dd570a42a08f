import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { AnswerMemo } from './answer-memo';

const ctx = () => ({ type: '', body: undefined as unknown }) as unknown as Context & { body: Buffer };

describe('AnswerMemo', () => {
  it('serializes an answer once per frozen value and variant, and again when either changes', () => {
    const memo = new AnswerMemo();
    let builds = 0;
    const box = Object.freeze({ name: 'alpha' });
    const versions = Object.freeze([Object.freeze({ v: '1.0.0' })]);
    const build = (base: string, b: { name: string }) => () => {
      builds++;
      return { base, name: b.name, versions };
    };

    const first = ctx();
    memo.send(first, [box, versions], 'http://a v1', build('http://a', box));
    expect(first.type).toBe('application/json');
    expect(JSON.parse(first.body.toString())).toEqual({ base: 'http://a', name: 'alpha', versions: [{ v: '1.0.0' }] });
    const again = ctx();
    memo.send(again, [box, versions], 'http://a v1', build('http://a', box));
    expect(again.body).toBe(first.body);
    expect(builds).toBe(1);

    const otherBase = ctx();
    memo.send(otherBase, [box, versions], 'http://b v1', build('http://b', box));
    expect(JSON.parse(otherBase.body.toString()).base).toBe('http://b');
    expect(builds).toBe(2);

    // The cache handed out new versions (a table changed): a new answer.
    const changed = Object.freeze([Object.freeze({ v: '2.0.0' })]);
    const after = ctx();
    memo.send(after, [box, changed], 'http://a v1', () => {
      builds++;
      return { versions: changed };
    });
    expect(JSON.parse(after.body.toString())).toEqual({ versions: [{ v: '2.0.0' }] });
    expect(builds).toBe(3);
  });

  it('serializes values that are not frozen every time: they did not come from a cache', () => {
    const memo = new AnswerMemo();
    const box = { name: 'alpha' };
    let builds = 0;
    for (const name of ['alpha', 'beta']) {
      box.name = name;
      const c = ctx();
      memo.send(c, [box], 'v', () => {
        builds++;
        return { name: box.name };
      });
      expect(JSON.parse(c.body.toString())).toEqual({ name });
    }
    expect(builds).toBe(2);
  });

  it('keeps a bounded number of variants per value', () => {
    const memo = new AnswerMemo();
    const box = Object.freeze({});
    let builds = 0;
    const send = (variant: string) =>
      memo.send(ctx(), [box], variant, () => {
        builds++;
        return { variant };
      });
    for (let i = 0; i < 20; i++) send(`host-${i}`);
    expect(builds).toBe(20);
    send('host-19');
    expect(builds).toBe(20);
    send('host-0');
    expect(builds).toBe(21);
  });

  it('drops the variant kept first, however often it was read since', () => {
    const memo = new AnswerMemo();
    const box = Object.freeze({});
    const built: string[] = [];
    const send = (variant: string) =>
      memo.send(ctx(), [box], variant, () => {
        built.push(variant);
        return { variant };
      });
    for (let i = 0; i < 8; i++) send(`host-${i}`);
    send('host-0');
    send('host-8');
    send('host-1');
    expect(built.slice(8)).toEqual(['host-8']);
    send('host-0');
    expect(built.slice(8)).toEqual(['host-8', 'host-0']);
  });
});
