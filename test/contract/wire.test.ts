import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as A from '../../daemon/src/contract/wire/accounts';
import * as J from '../../daemon/src/contract/wire/jsonapi';
import * as R from '../../daemon/src/contract/wire/registry';
import type * as BA from '../../daemon/src/contract/bodies/accounts';
import type * as BJ from '../../daemon/src/contract/bodies/jsonapi';
import type * as BR from '../../daemon/src/contract/bodies/registry';
import { tokenCreated, tokenListed, userSelf } from '../../daemon/src/auth/serialize';
import { organizationSummary } from '../../daemon/src/orgs/resources';
import { boxJson, boxSummaryJson, providerJson, versionJson } from '../../daemon/src/registry/serialize';
import { conforms, conformsData, fits } from '../helpers/contract';
import { ADMIN, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import type { HttpClient } from '../helpers/http';
import { createBox, publish } from '../helpers/registry';

// The wire contract the web UI speaks (daemon/src/contract/) against the real daemon:
// each request body is typed by the contract's body schema (`satisfies z.input<…>`: tsc fails if
// the UI's type drifts) and must be accepted, each answer must parse with the contract's answer
// schema and carry no key it leaves out. The registry, the account endpoints and the JSON:API
// resources here; test/contract/wire-mirror.test.ts does the mirroring API.

fits<R.ProviderJson>()(providerJson);
fits<R.VersionJson>()(versionJson);
fits<R.BoxSummaryJson>()(boxSummaryJson);
fits<R.BoxJson>()(boxJson);
fits<A.UserJson>()(userSelf);
fits<A.OrganizationJson>()(organizationSummary);
fits<A.ApiTokenJson>()(tokenListed);
fits<A.CreatedTokenJson>()(tokenCreated);

let d: TestDaemon;
let alice: HttpClient;
let admin: HttpClient;

beforeAll(async () => {
  d = await startTestDaemon();
  alice = (await d.user('alice', { orgs: ['acme'] })).http;
  admin = d.http.withToken(d.adminToken);
});
afterAll(() => d?.stop());

describe('box registry answers', () => {
  it('a box, its versions and providers, search hits and the upload target', async () => {
    await createBox(alice, 'alice', 'web');
    await publish(alice, 'alice', 'web', '1.0.0');
    const created = await alice.post('/api/v1/box/alice/web/versions', {
      version: { version: '1.1.0', description: 'next' } satisfies z.input<typeof BR.CreateVersion>,
    });
    conforms(R.VersionJson, created);
    const hosted = await alice.post('/api/v1/box/alice/web/version/1.1.0/providers', {
      provider: { name: 'libvirt', architecture: 'arm64' } satisfies z.input<typeof BR.CreateProvider>,
    });
    conforms(R.ProviderJson, hosted);
    conforms(R.ProviderJson, await alice.get('/api/v1/box/alice/web/version/1.1.0/provider/libvirt/arm64'));
    conforms(R.UploadTargetJson, await alice.get('/api/v1/box/alice/web/version/1.1.0/provider/libvirt/arm64/upload'));
    conforms(
      R.UploadTargetJson,
      await alice.get('/api/v1/box/alice/web/version/1.1.0/provider/libvirt/arm64/upload/direct'),
    );

    const box = conforms(R.BoxJson, await alice.get('/api/v1/box/alice/web'));
    expect(box.versions.map((v) => v.status)).toEqual(['unreleased', 'active']);
    conforms(
      R.BoxJson,
      await alice.post('/api/v1/boxes', {
        box: { username: 'acme', name: 'empty', is_private: true } satisfies z.input<typeof BR.CreateBox>,
      }),
    );
    conforms(R.VersionJson, await alice.put('/api/v1/box/alice/web/version/1.0.0/revoke'));
    await createBox(alice, 'alice', 'db');
    await publish(alice, 'alice', 'db', '2.0.0');
    const hits = conforms(R.SearchJson, await alice.get('/api/v1/search'));
    expect(hits.boxes.map((b) => b.tag)).toEqual(['alice/db']);
  });
});

describe('account answers', () => {
  it('the session, users, tokens and two-factor', async () => {
    const csrf = { headers: { 'x-boxyard-csrf': '1' } };
    const login = {
      user: { login: 'alice', password: 'alice-password' },
      two_factor: { code: null },
    } satisfies z.input<typeof BA.CreateTokenBody>;
    const session = await d.http.post('/api/boxyard/session', login, csrf);
    conforms(A.UserAnswer, session);
    conforms(A.UserAnswer, await alice.get('/api/boxyard/user'));
    conforms(A.UsersAnswer, await admin.get('/api/boxyard/users'));
    const dave = {
      user: { username: 'dave', password: 'dave-password-1', email: 'dave@example.com', admin: false },
    } satisfies z.input<typeof BA.CreateUserBody>;
    conforms(A.UserAnswer, await admin.post('/api/boxyard/users', dave), 201);

    const made = conforms(
      A.CreatedTokenJson,
      await alice.post('/api/boxyard/tokens', { token: { description: 'ci' } } satisfies z.input<
        typeof BA.NewTokenBody
      >),
      201,
    );
    conforms(
      A.CreatedTokenJson,
      await d.http.post('/api/v1/authenticate', { user: { login: ADMIN.username, password: ADMIN.password } }),
    );
    await d.http.withToken(made.token).get('/api/v1/authenticate');
    const tokens = conforms(A.ApiTokensAnswer, await alice.get('/api/boxyard/tokens'));
    expect(tokens.tokens.some((t) => t.last_used_at !== null)).toBe(true);

    conforms(A.TwoFactorMethodsAnswer, await alice.get('/api/boxyard/two-factor'));
    conforms(A.TotpSetupAnswer, await alice.post('/api/boxyard/two-factor/totp'), 201);
    const sms = { two_factor: { phone: '+41 79 555 01 02' }, current_password: 'alice-password' } satisfies z.input<
      typeof BA.SmsEnableBody
    >;
    conforms(A.TwoFactorMethodsAnswer, await alice.post('/api/boxyard/two-factor/sms', sms));
    conforms(A.SettingsAnswer, await alice.get('/api/boxyard/settings'));
    conforms(
      A.SettingsAnswer,
      await admin.put('/api/boxyard/settings', { settings: { cache_max_age_minutes: 45 } } satisfies z.input<
        typeof BA.SettingsBody
      >),
    );
  });

  it('organizations and their members', async () => {
    conforms(
      A.OrganizationAnswer,
      await alice.post('/api/boxyard/organizations', {
        organization: { name: 'beta', email: 'ops@example.com' },
      } satisfies z.input<typeof BA.CreateOrganizationBody>),
      201,
    );
    const orgs = conforms(A.OrganizationsAnswer, await alice.get('/api/boxyard/organizations'));
    expect(orgs.organizations.map((o) => o.name)).toEqual(['acme', 'beta']);
    expect(
      (
        await alice.put('/api/boxyard/organizations/acme/members/dave', {
          member: { role: 'member' },
        } satisfies z.input<typeof BA.MemberBody>)
      ).status,
    ).toBe(200);
    const acme = conforms(A.OrganizationDetailAnswer, await alice.get('/api/boxyard/organizations/acme'));
    expect(acme.organization.members.map((m) => [m.username, m.role])).toEqual([
      ['alice', 'owner'],
      ['dave', 'member'],
    ]);
  });
});

describe('JSON:API resources', () => {
  it('agent pools, their tokens and agents, and workspaces', async () => {
    const api = alice.withContentType('application/vnd.api+json');
    const pool = conformsData(
      J.AgentPoolJson,
      await api.post('/api/v2/organizations/acme/agent-pools', {
        data: { type: 'agent-pools', attributes: { name: 'lab', 'organization-scoped': true } },
      } satisfies z.input<typeof BJ.CreatePoolDocument>),
      201,
    );
    conformsData(z.array(J.AgentPoolJson), await api.get('/api/v2/organizations/acme/agent-pools'));

    const token = conformsData(
      J.AgentTokenJson,
      await api.post(`/api/v2/agent-pools/${pool.id}/authentication-tokens`, {
        data: { type: 'authentication-tokens', attributes: { description: 'runners' } },
      } satisfies z.input<typeof BJ.CreateAgentTokenDocument>),
      201,
    );
    expect(token.attributes.token).toEqual(expect.any(String));
    const listed = conformsData(
      z.array(J.AgentTokenJson),
      await api.get(`/api/v2/agent-pools/${pool.id}/authentication-tokens`),
    );
    expect(listed[0].attributes.token).toBeUndefined();

    expect(
      (await d.http.withToken(token.attributes.token).post('/api/agent/register', { name: 'runner-1' })).status,
    ).toBe(201);
    const agents = conformsData(z.array(J.AgentJson), await api.get(`/api/v2/agent-pools/${pool.id}/agents`));
    expect(agents.map((a) => a.attributes.status)).toEqual(['idle']);

    const ws = conformsData(
      J.WorkspaceJson,
      await api.post('/api/v2/organizations/acme/workspaces', {
        data: { type: 'workspaces', attributes: { name: 'infra' } },
      } satisfies z.input<typeof BJ.CreateWorkspaceDocument>),
      201,
    );
    const moved = conformsData(
      J.WorkspaceJson,
      await api.patch(`/api/v2/workspaces/${ws.id}`, {
        data: { type: 'workspaces', attributes: { 'execution-mode': 'agent', 'agent-pool-id': pool.id } },
      } satisfies z.input<typeof BJ.UpdateWorkspaceDocument>),
    );
    expect(moved.relationships['agent-pool'].data?.id).toBe(pool.id);
    conformsData(z.array(J.WorkspaceJson), await api.get('/api/v2/organizations/acme/workspaces'));
    const scoped = conformsData(
      J.AgentPoolJson,
      await api.patch(`/api/v2/agent-pools/${pool.id}`, {
        data: {
          type: 'agent-pools',
          attributes: { 'organization-scoped': false },
          relationships: { 'allowed-workspaces': { data: [{ type: 'workspaces', id: ws.id }] } },
        },
      } satisfies z.input<typeof BJ.UpdatePoolDocument>),
    );
    expect(scoped.relationships['allowed-workspaces'].data).toEqual([{ type: 'workspaces', id: ws.id }]);
    conformsData(J.AgentPoolJson, await api.get(`/api/v2/agent-pools/${pool.id}`));
  });

  it('the UI offers Delete for exactly the agents the daemon lets go (DELETABLE_AGENT_STATUSES)', async () => {
    const api = alice.withContentType('application/vnd.api+json');
    expect((await alice.post('/api/boxyard/organizations', { organization: { name: 'gamma' } })).status).toBe(201);
    const pool = conformsData(
      J.AgentPoolJson,
      await api.post('/api/v2/organizations/gamma/agent-pools', {
        data: { type: 'agent-pools', attributes: { name: 'deletable', 'organization-scoped': true } },
      } satisfies z.input<typeof BJ.CreatePoolDocument>),
      201,
    );
    const token = conformsData(
      J.AgentTokenJson,
      await api.post(`/api/v2/agent-pools/${pool.id}/authentication-tokens`, {
        data: { type: 'authentication-tokens', attributes: { description: 'runners' } },
      } satisfies z.input<typeof BJ.CreateAgentTokenDocument>),
      201,
    );
    assert(token.attributes.token, 'a new agent token answers its secret');
    const agent = d.http.withToken(token.attributes.token);
    // The states an agent reports itself into; the watchdog's (unknown, errored): test/agents/lifecycle.test.ts.
    for (const status of ['idle', 'busy', 'exited'] as const) {
      const id = (await agent.post('/api/agent/register', { name: `runner-${status}` })).json.agent.id as string;
      if (status !== 'idle') expect((await agent.post(`/api/agent/agents/${id}/status`, { status })).status).toBe(200);
      const shown = conformsData(J.AgentJson, await api.get(`/api/v2/agents/${id}`));
      expect(shown.attributes.status).toBe(status);
      const deleted = await api.delete(`/api/v2/agents/${id}`);
      expect(deleted.status, `${status}: ${deleted.text}`).toBe(
        J.DELETABLE_AGENT_STATUSES.includes(status) ? 204 : 412,
      );
    }
  });
});
