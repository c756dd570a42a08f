import '../../renderer/src/zod-config';
import { describe, expect, it } from 'vitest';
import {
  CreateOrganizationBody,
  NewTokenBody,
  TokenDescription,
  UpdateUserBody,
} from '../../daemon/src/contract/bodies/accounts';
import {
  CreateAgentTokenDocument,
  PoolAttributes,
  WorkspaceAttributes,
} from '../../daemon/src/contract/bodies/jsonapi';
import { CreateBox, CreateVersion } from '../../daemon/src/contract/bodies/registry';
import { CreateMirror, CreateUpstream } from '../../daemon/src/contract/bodies/mirror';
import { ApiError } from '../../renderer/src/api/client';
import { FormIssues, checked, formError, hintOf, issueAt, issuesOf } from '../../renderer/src/components/form-issues';

const refusal = (code: string, message: string) => new ApiError(403, [message], { errors: [message], code });

describe("forms' rules, from the contract", () => {
  it('a hint is the words beside the rule, through optional and nullable', () => {
    expect(hintOf(CreateOrganizationBody.shape.organization.shape.name)).toMatch(
      /^Up to 64 letters, numbers, "-", "_" and "\.", starting with a letter or number/,
    );
    expect(hintOf(CreateUpstream.shape.max_failures)).toMatch(/^After this many failures in a row \(1 to 1000\)/);
    expect(hintOf(CreateMirror.shape.retain)).toMatch(/^Keep only the newest N/);
    expect(hintOf(UpdateUserBody.shape.user.shape.password)).toMatch(/^At least 12 characters/);
    expect(hintOf(CreateUpstream.shape.token)).toBeUndefined();
  });

  it('pools and workspaces share one name rule; both kinds of token one description rule; boxes and versions theirs', () => {
    expect(hintOf(PoolAttributes.shape.name)).toMatch(/^Up to 90 letters, numbers, "-" and "_": no spaces/);
    expect(hintOf(WorkspaceAttributes.shape.name)).toBe(hintOf(PoolAttributes.shape.name));
    expect(issuesOf(WorkspaceAttributes, { name: 'e2e ws' })).toEqual({
      name: 'Name may contain only letters, numbers, "-" and "_"',
    });
    const agentToken = CreateAgentTokenDocument.shape.data.shape.attributes.unwrap().shape.description;
    expect(hintOf(agentToken)).toMatch(/^What the token is for/);
    expect(hintOf(NewTokenBody.shape.token.unwrap().shape.description)).toBe(hintOf(agentToken));
    expect(issuesOf(TokenDescription, 'x'.repeat(1025))).toEqual({ '': 'Must be at most 1024 characters' });
    expect(hintOf(CreateBox.shape.name)).toMatch(/the second half of owner\/name\.$/);
    expect(hintOf(CreateBox.shape.is_private)).toMatch(/^Only the owner's members/);
    expect(issuesOf(CreateVersion, { version: 'v1.0', description: '' })).toEqual({
      version: 'Version must be a Ruby Gem version such as 1.0.0 or 1.0.0-beta (no leading "v")',
    });
  });

  it("issues land on the body path the daemon would name, in the rule's words or plain ones", () => {
    expect(issuesOf(CreateOrganizationBody, { organization: { name: 'e2e org!', email: 'nope' } })).toEqual({
      'organization.name': 'May contain only letters, numbers, "-", "_" and "." and must start with a letter or number',
      'organization.email': 'Must be an e-mail address such as ada@example.com',
    });
    expect(issuesOf(CreateUpstream, { url: '', timeout_seconds: 0, max_failures: 1.5 })).toEqual({
      url: 'Must not be empty',
      timeout_seconds: 'Must be at least 1',
      max_failures: 'Must be a whole number',
    });
    expect(issuesOf(CreateMirror, { source: 'lab/base', latest: 3 })).toBeNull();
  });

  it('a broken rule is not sent; each field says its own issue, the form nothing more', () => {
    let thrown: unknown;
    try {
      checked(CreateUpstream, { url: 'http://127.0.0.1:9', pause_minutes: -1 });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(FormIssues);
    expect(issueAt(thrown, 'pause_minutes')).toBe('Must be at least 0');
    expect(issueAt(thrown, 'url')).toBeUndefined();
    expect(formError(thrown)).toBeNull();
    expect(checked(CreateUpstream, { url: 'http://127.0.0.1:9' })).toEqual({ url: 'http://127.0.0.1:9' });
  });

  it("the daemon's refusal goes to the field that owns it, in words rather than parameter names", () => {
    const wrong = refusal(
      'reauthentication_required',
      'Changing the password needs your current password: send current_password (or current_code, …).',
    );
    const owns = (e: unknown) => e instanceof ApiError && e.code === 'reauthentication_required';
    expect(issueAt(wrong, 'current_password', owns)).toBe(
      'Your current password (or a code from your two-factor app) is missing or wrong: nothing was changed.',
    );
    expect(formError(wrong, owns)).toBeNull();
    const other = refusal('forbidden', 'no');
    expect(issueAt(other, 'current_password', owns)).toBeUndefined();
    expect(formError(other, owns)).toBe(other);
  });
});
