import Router from '@koa/router';
import { requireUser } from '../http/auth';
import { baseUrl } from '../http/base-url';
import { validated } from '../http/validate';
import { document, sendDocument, sendNoContent } from '../http/jsonapi/document';
import { sendList } from '../http/jsonapi/list';
import { pageOf } from '../http/jsonapi/pagination';
import type { AgentsApiDeps } from './routes';
import { workspaceResource } from './resources';
import * as S from './schemas';
import { WorkspaceCreateBody, WorkspaceUpdateBody } from './workspace-schemas';

export function workspacesRoutes(d: AgentsApiDeps): Router {
  const r = new Router();
  r.get('/organizations/:org/workspaces', validated({ params: S.OrgParams, query: S.WorkspaceListQuery }, async (ctx, { params, query }) => {
    const page = pageOf(query);
    const { org, rows, total } = await d.workspaces.list(requireUser(ctx), params.org, query['search[name]'], page);
    sendList(ctx, rows.map((w) => workspaceResource(w, org.name)), { base: baseUrl(ctx, d.config.publicUrl), page, totalCount: total });
  }));
  r.post('/organizations/:org/workspaces', validated({ params: S.OrgParams, body: WorkspaceCreateBody }, async (ctx, { params, body }) => {
    const ws = await d.workspaces.create(requireUser(ctx), params.org, body);
    sendDocument(ctx, document(workspaceResource(ws, ws.organization_name)), 201);
  }));
  r.get('/organizations/:org/workspaces/:name', validated({ params: S.OrgNameParams }, async (ctx, { params }) => {
    const ws = await d.workspaces.showByName(requireUser(ctx), params.org, params.name);
    sendDocument(ctx, document(workspaceResource(ws, ws.org.name)));
  }));
  r.get('/workspaces/:id', validated({ params: S.IdParams }, async (ctx, { params }) => {
    const ws = await d.workspaces.show(requireUser(ctx), params.id);
    sendDocument(ctx, document(workspaceResource(ws, ws.org.name)));
  }));
  r.patch('/workspaces/:id', validated({ params: S.IdParams, body: WorkspaceUpdateBody }, async (ctx, { params, body }) => {
    const ws = await d.workspaces.update(requireUser(ctx), params.id, body);
    sendDocument(ctx, document(workspaceResource(ws, ws.organization_name)));
  }));
  const remove = validated({ params: S.IdParams }, async (ctx, { params }) => {
    await d.workspaces.delete(requireUser(ctx), params.id);
    sendNoContent(ctx);
  });
  r.delete('/workspaces/:id', remove);
  /**
   * HCP Terraform's safe delete refuses while the workspace manages resources; Boxyard keeps no
   * state, so it is always safe. The tfe provider destroys a tfe_workspace this way unless
   * force_delete is set.
   */
  r.post('/workspaces/:id/actions/safe-delete', remove);
  return r;
}
