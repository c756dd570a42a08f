import Router from '@koa/router';
import type { Context } from 'koa';
import { requireUser } from '../auth/middleware';
import { BOXYARD } from '../http/route-table';
import { NameParams } from '../http/params';
import { validated } from '../http/validate';
import type { OrganizationAccess } from './access';
import { organizationSummary } from './resources';
import * as S from './schemas';
import type { OrgService } from './service';

export interface OrgAdminRouteDeps {
  orgs: OrgService;
  orgAccess: OrganizationAccess;
}

/** The organization named in the path, to a member (or an administrator); 404 to anyone else. */
export async function visibleOrganization(deps: OrgAdminRouteDeps, ctx: Context, name: string) {
  const p = requireUser(ctx);
  return { p, org: await deps.orgAccess.visible(p, name) };
}

/** Changes need an owner (or an administrator); members see the organization (403), others get 404. */
export async function ownedOrganization(deps: OrgAdminRouteDeps, ctx: Context, name: string) {
  const { p, org } = await visibleOrganization(deps, ctx, name);
  await deps.orgs.requireOwner(p, org);
  return org;
}

/** Organizations and their members in Boxyard's own API (under /api/boxyard), for the UI and scripts. */
export function orgAdminRoutes(deps: OrgAdminRouteDeps): Router {
  const r = new Router();
  const visible = (ctx: Context, name: string) => visibleOrganization(deps, ctx, name);
  const owned = (ctx: Context, name: string) => ownedOrganization(deps, ctx, name);

  r.get(BOXYARD.organizations.path, async (ctx) => {
    ctx.body = { organizations: (await deps.orgs.list(requireUser(ctx))).map(organizationSummary) };
  });
  r.post(
    BOXYARD.organizations.path,
    validated({ body: S.CreateOrganizationBody }, async (ctx, { body }) => {
      const p = requireUser(ctx);
      ctx.status = 201;
      ctx.body = { organization: organizationSummary(await deps.orgs.create(body.organization, p.user)) };
    }),
  );
  r.get(
    BOXYARD.organization.path,
    validated({ params: NameParams }, async (ctx, { params }) => {
      const { p, org } = await visible(ctx, params.name);
      const [members, mayManage] = await Promise.all([deps.orgs.members(org), deps.orgs.isOwner(p, org)]);
      ctx.body = { organization: { ...organizationSummary(org), members, may_manage: mayManage } };
    }),
  );
  r.patch(
    BOXYARD.organization.path,
    validated({ params: NameParams, body: S.UpdateOrganizationBody }, async (ctx, { params, body }) => {
      const org = await owned(ctx, params.name);
      ctx.body = { organization: organizationSummary(await deps.orgs.update(org, body.organization)) };
    }),
  );
  r.delete(
    BOXYARD.organization.path,
    validated({ params: NameParams }, async (ctx, { params }) => {
      await deps.orgs.delete(await owned(ctx, params.name));
      ctx.status = 204;
    }),
  );
  r.put(
    BOXYARD.member.path,
    validated({ params: S.MemberParams, body: S.MemberBody }, async (ctx, { params, body }) => {
      const org = await owned(ctx, params.name);
      await deps.orgs.setMember(org, params.username, body.member.role);
      ctx.body = { members: await deps.orgs.members(org) };
    }),
  );
  r.delete(
    BOXYARD.member.path,
    validated({ params: S.MemberParams }, async (ctx, { params }) => {
      await deps.orgs.removeMember(await owned(ctx, params.name), params.username);
      ctx.status = 204;
    }),
  );
  return r;
}
