import Router from '@koa/router';
import { z } from 'zod';
import { BOXYARD } from '../http/route-table';
import { NameParams } from '../http/params';
import { validated } from '../http/validate';
import { CreateServicePrincipalBody } from '../contract/bodies/accounts';
import type { ServicePrincipalCreatedAnswer } from '../contract/wire/accounts';
import { principalSummary, type ServicePrincipalService } from '../auth/service-principals/service';
import { ownedOrganization, type OrgAdminRouteDeps } from './admin-routes';

export interface ServicePrincipalRouteDeps extends OrgAdminRouteDeps {
  principals: ServicePrincipalService;
}

const PrincipalParams = NameParams.extend({ clientId: z.string().min(1).max(256) });

/**
 * An organization's service principals in Boxyard's own API: its owners (and administrators) create, list and revoke
 * them; to its members they are 403, to anyone else the organization is 404. The secret is in the create's answer only.
 */
export function servicePrincipalRoutes(deps: ServicePrincipalRouteDeps): Router {
  const r = new Router();
  r.get(
    BOXYARD.servicePrincipals.path,
    validated({ params: NameParams }, async (ctx, { params }) => {
      const org = await ownedOrganization(deps, ctx, params.name);
      ctx.body = { service_principals: (await deps.principals.list(org.id)).map(principalSummary) };
    }),
  );
  r.post(
    BOXYARD.servicePrincipals.path,
    validated({ params: NameParams, body: CreateServicePrincipalBody }, async (ctx, { params, body }) => {
      const org = await ownedOrganization(deps, ctx, params.name);
      const { principal, secret } = await deps.principals.create(org.id, body.service_principal.name);
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        service_principal: { ...principalSummary(principal), client_secret: secret },
      } satisfies ServicePrincipalCreatedAnswer;
    }),
  );
  r.delete(
    BOXYARD.servicePrincipal.path,
    validated({ params: PrincipalParams }, async (ctx, { params }) => {
      const org = await ownedOrganization(deps, ctx, params.name);
      await deps.principals.revoke(org.id, org.name, params.clientId);
      ctx.status = 204;
    }),
  );
  return r;
}
