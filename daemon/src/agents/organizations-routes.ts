import Router from '@koa/router';
import { requireUser } from '../http/auth';
import { baseUrl } from '../http/base-url';
import { validated } from '../http/validate';
import { document, sendDocument, sendNoContent } from '../http/jsonapi/document';
import { sendList } from '../http/jsonapi/list';
import { PageQuery, pageOf } from '../http/jsonapi/pagination';
import type { AgentsApiDeps } from './routes';
import { organizationResource, projectResource } from './resources';
import * as S from './schemas';

/** HCP Terraform reports its API version here; go-tfe reads only the headers. */
export const TFP_API_VERSION = '2.5';

/** `/ping`, organizations and projects. */
export function organizationsRoutes(d: AgentsApiDeps): Router {
  const r = new Router();
  r.get('/ping', (ctx) => {
    ctx.set('TFP-API-Version', TFP_API_VERSION);
    sendDocument(ctx, document(null));
  });

  r.get('/organizations', validated({ query: PageQuery }, async (ctx, { query }) => {
    const page = pageOf(query);
    const { views, total } = await d.organizations.list(requireUser(ctx), page);
    sendList(ctx, views.map(organizationResource), { base: baseUrl(ctx, d.config.publicUrl), page, totalCount: total });
  }));
  r.post('/organizations', validated({ body: S.OrganizationCreateBody }, async (ctx, { body }) => {
    sendDocument(ctx, document(organizationResource(await d.organizations.create(requireUser(ctx), body))), 201);
  }));
  r.get('/organizations/:name', validated({ params: S.NameParams }, async (ctx, { params }) => {
    sendDocument(ctx, document(organizationResource(await d.organizations.show(requireUser(ctx), params.name))));
  }));
  r.patch('/organizations/:name', validated({ params: S.NameParams, body: S.OrganizationUpdateBody }, async (ctx, { params, body }) => {
    sendDocument(ctx, document(organizationResource(await d.organizations.update(requireUser(ctx), params.name, body))));
  }));
  r.delete('/organizations/:name', validated({ params: S.NameParams }, async (ctx, { params }) => {
    await d.organizations.delete(requireUser(ctx), params.name);
    sendNoContent(ctx);
  }));

  r.get('/organizations/:org/projects', validated({ params: S.OrgParams, query: PageQuery }, async (ctx, { params, query }) => {
    const page = pageOf(query);
    const { org, rows, total } = await d.projects.list(requireUser(ctx), params.org, page);
    sendList(ctx, rows.map((p) => projectResource(p, org.name)), { base: baseUrl(ctx, d.config.publicUrl), page, totalCount: total });
  }));
  r.post('/organizations/:org/projects', validated({ params: S.OrgParams, body: S.ProjectCreateBody }, async (ctx, { params, body }) => {
    const p = await d.projects.create(requireUser(ctx), params.org, body.name);
    sendDocument(ctx, document(projectResource(p, p.organization_name)), 201);
  }));
  r.get('/projects/:id', validated({ params: S.IdParams }, async (ctx, { params }) => {
    const p = await d.projects.show(requireUser(ctx), params.id);
    sendDocument(ctx, document(projectResource(p, p.org.name)));
  }));
  r.delete('/projects/:id', validated({ params: S.IdParams }, async (ctx, { params }) => {
    await d.projects.delete(requireUser(ctx), params.id);
    sendNoContent(ctx);
  }));
  return r;
}
