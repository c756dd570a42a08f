import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NamespacesAnswer } from '../daemon/src/contract/wire-registry';
import { startTestDaemon, type TestDaemon } from './helpers/daemon';
import type { HttpClient } from './helpers/http';
import { createBox, publish } from './helpers/registry';

// GET /api/boxyard/namespaces: the web UI's box list in one request (issue 11), where the
// Vagrant Cloud API needs one GET /user/:name per namespace.

let d: TestDaemon;
let admin: HttpClient;
let alice: HttpClient;
let bob: HttpClient;
let carol: HttpClient;

beforeAll(async () => {
  d = await startTestDaemon();
  admin = d.http.withToken(d.adminToken);
  alice = (await d.user('alice', { orgs: ['acme'] })).http;
  bob = (await d.user('bob')).http;
  carol = (await d.user('carol', { orgs: ['lonely'] })).http;
  const acme = (await d.deps.orgs.named('acme'))!;
  await d.deps.orgs.setMember(acme, 'bob', 'member');

  await createBox(alice, 'alice', 'zeta');
  await publish(alice, 'alice', 'zeta', '1.0.0');
  await createBox(alice, 'alice', 'Draft', { private: true });
  await createBox(alice, 'acme', 'tool', { private: true });
  await publish(alice, 'acme', 'tool', '2.0.0');
  await createBox(bob, 'bob', 'own', { private: true });
  await createBox(carol, 'carol', 'shared');
  await publish(carol, 'carol', 'shared', '1.0.0');
});
afterAll(() => d?.stop());

/** The answer, checked against the contract the UI reads it with: nothing missing, nothing more. */
async function namespaces(http: HttpClient) {
  const r = await http.get('/api/boxyard/namespaces');
  expect(r.status, r.text).toBe(200);
  expect(NamespacesAnswer.parse(r.json)).toEqual(r.json);
  return (r.json as NamespacesAnswer).namespaces;
}

const tags = (ns: NamespacesAnswer['namespaces']) => ns.map((n) => ({ name: n.name, kind: n.kind, boxes: n.boxes.map((b) => b.tag) }));

describe('GET /api/boxyard/namespaces', () => {
  it('answers the user first, then their organizations, with private and unreleased boxes, by name', async () => {
    expect(tags(await namespaces(alice))).toEqual([
      { name: 'alice', kind: 'user', boxes: ['alice/Draft', 'alice/zeta'] },
      { name: 'acme', kind: 'organization', boxes: ['acme/tool'] },
    ]);
  });

  it('shows a member their organizations and nobody else’s boxes, not even public ones', async () => {
    expect(tags(await namespaces(bob))).toEqual([
      { name: 'bob', kind: 'user', boxes: ['bob/own'] },
      { name: 'acme', kind: 'organization', boxes: ['acme/tool'] },
    ]);
    expect(tags(await namespaces(carol))).toEqual([
      { name: 'carol', kind: 'user', boxes: ['carol/shared'] },
      { name: 'lonely', kind: 'organization', boxes: [] },
    ]);
  });

  it('shows an administrator every organization', async () => {
    expect(tags(await namespaces(admin))).toEqual([
      { name: 'admin', kind: 'user', boxes: [] },
      { name: 'acme', kind: 'organization', boxes: ['acme/tool'] },
      { name: 'lonely', kind: 'organization', boxes: [] },
    ]);
  });

  it('holds for each namespace what GET /api/v1/user/:name holds, box for box', async () => {
    for (const ns of await namespaces(alice)) {
      const profile = await alice.get(`/api/v1/user/${ns.name}`);
      expect(profile.status).toBe(200);
      expect(ns.boxes, ns.name).toEqual(profile.json.boxes);
    }
  });

  it('follows changes at once: a new box, a released version, a new membership', async () => {
    await createBox(bob, 'acme', 'fresh');
    await publish(bob, 'bob', 'own', '0.1.0');
    const bobs = await namespaces(bob);
    expect(tags(bobs)[1].boxes).toEqual(['acme/fresh', 'acme/tool']);
    expect(bobs[0].boxes[0].current_version?.version).toBe('0.1.0');

    const lonely = (await d.deps.orgs.named('lonely'))!;
    await d.deps.orgs.setMember(lonely, 'bob', 'member');
    expect(tags(await namespaces(bob)).map((n) => n.name)).toEqual(['bob', 'acme', 'lonely']);
  });

  it('needs a signed-in user (401), and sends nothing then', async () => {
    const r = await d.http.get('/api/boxyard/namespaces');
    expect(r.status).toBe(401);
    expect(r.json.namespaces).toBeUndefined();
    expect((await d.http.withToken('not-a-token').get('/api/boxyard/namespaces')).status).toBe(401);
  });
});
