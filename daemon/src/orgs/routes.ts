import Router from '@koa/router';
import { requireUser } from '../auth/middleware';
import { baseUrl } from '../http/base-url';
import { validated } from '../http/validate';
import { document, sendDocument, sendNoContent } from '../http/jsonapi/document';
import { sendList } from '../http/jsonapi/list';
import { PageQuery, pageOf } from '../http/jsonapi/pagination';
import type { Config } from '../config';
import { NameParams } from '../http/params';
import { organizationResource } from './resources';
import * as S from './schemas';
import type { OrganizationsService } from './tfc-service';
import { TFC } from '../http/route-table';

/** HCP Terraform reports its API version here; go-tfe reads only the headers. */
export const TFP_API_VERSION = '2.5';

export interface OrganizationsRouteDeps {
  organizations: OrganizationsService;
  config: Pick<Config, 'publicUrl'>;
}

/** `/ping` and organizations. */
export function organizationsRoutes(deps: OrganizationsRouteDeps): Router {
  const r = new Router();
  r.get(TFC.ping.path, (ctx) => {
    ctx.set('TFP-API-Version', TFP_API_VERSION);
    sendDocument(ctx, document(null));
  });

  r.get(
    TFC.organizations.path,
    validated({ query: PageQuery }, async (ctx, { query }) => {
      const page = pageOf(query);
      const { views, total } = await deps.organizations.list(requireUser(ctx), page);
      sendList(ctx, views.map(organizationResource), {
        base: baseUrl(ctx, deps.config.publicUrl),
        page,
        totalCount: total,
      });
    }),
  );
  r.post(
    TFC.organizations.path,
    validated({ body: S.OrganizationCreateBody }, async (ctx, { body }) => {
      sendDocument(ctx, document(organizationResource(await deps.organizations.create(requireUser(ctx), body))), 201);
    }),
  );
  r.get(
    TFC.organization.path,
    validated({ params: NameParams }, async (ctx, { params }) => {
      sendDocument(ctx, document(organizationResource(await deps.organizations.show(requireUser(ctx), params.name))));
    }),
  );
  r.patch(
    TFC.organization.path,
    validated({ params: NameParams, body: S.OrganizationUpdateBody }, async (ctx, { params, body }) => {
      sendDocument(
        ctx,
        document(organizationResource(await deps.organizations.update(requireUser(ctx), params.name, body))),
      );
    }),
  );
  r.delete(
    TFC.organization.path,
    validated({ params: NameParams }, async (ctx, { params }) => {
      await deps.organizations.delete(requireUser(ctx), params.name);
      sendNoContent(ctx);
    }),
  );
  return r;
}
