import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';

/*
 * HCP's operation wait answers for the box creation it returned after the daemon restarts: the operation is the box
 * (registry/hcp/operation-routes.ts), nothing held in memory.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-hcp-ops-'));
let d: TestDaemon | undefined;
afterAll(async () => {
  await d?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('answers DONE for a created box after a restart, and 404 once the box is deleted', async () => {
  d = await startTestDaemon({ dataDir });
  const alice = await d.user('alice', { orgs: ['acme'] });
  const made = await alice.http.post('/vagrant/2022-09-30/registry/acme/boxes', { name: 'web' });
  expect(made.status, made.text).toBe(200);
  const { id, location } = made.json.operation;
  const path = `/operation/2020-05-05/organizations/${location.organization_id}/projects/${location.project_id}/operations/${id}/wait?timeout=60s`;
  await d.stop();

  d = await startTestDaemon({ dataDir });
  const token = (await d.http.post('/api/v1/authenticate', { user: { login: 'alice', password: 'alice-password' } }))
    .json.token;
  const again = d.http.withToken(token);
  const waited = await again.get(path);
  expect(waited.status, waited.text).toBe(200);
  expect(waited.json).toEqual({
    operation: { id, state: 'DONE', location, created_at: expect.any(String), updated_at: expect.any(String) },
  });
  expect((await again.delete('/api/v1/box/acme/web')).status).toBe(200);
  expect((await again.get(path)).status).toBe(404);
});
