import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { packageRoot } from '../lib/package-root';
import { setUiPageHeaders } from '../http/guards/security-headers';
import { isUiPath } from '../http/route-table';
import type { Context, Middleware } from 'koa';

/** Where `npm run build:ui` writes the renderer, in the package (same layout in the desktop app). */
export const defaultUiDir = (): string => join(packageRoot(), 'renderer', 'dist');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const NOT_BUILT =
  'The Boxyard web UI has not been built. Run `npm run build:ui` (or `npm install`, which builds it) and reload.\n';

async function fileSize(path: string): Promise<number | undefined> {
  try {
    const s = await stat(path);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
}

function text(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = body;
}

/** The path below /ui/ as a list of decoded segments, or undefined when it is hostile (`..`, NUL, bad escapes). */
function segmentsOf(path: string): string[] | undefined {
  const rest = path.slice('/ui/'.length);
  const out: string[] = [];
  for (const raw of rest.split('/')) {
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (seg === '..' || seg.includes('\0') || seg.includes('/') || seg.includes('\\')) return undefined;
    if (seg !== '' && seg !== '.') out.push(seg);
  }
  return out;
}

async function send(ctx: Context, file: string, size: number, immutable: boolean, status = 200): Promise<void> {
  ctx.status = status;
  ctx.type = TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  ctx.length = size;
  // Vite puts a content hash in every asset name, so those never change; index.html must always be re-read.
  ctx.set('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.body = ctx.method === 'HEAD' ? null : createReadStream(file);
}

/**
 * Whether a path no file answers names a missing file rather than a page of the UI: Vite writes
 * its files under assets/, and public ones (favicon.ico) at the top. Deeper paths are the UI's
 * own routes, whose last segment may well hold a dot (the box `ubuntu-24.04`).
 */
function isAssetPath(segments: string[]): boolean {
  return segments[0] === 'assets' || (segments.length === 1 && extname(segments[0]) !== '');
}

/** Answers the UI's page (index.html) with `status`, for a route that shows it at its own path. */
export type UiPage = (ctx: Context, status: number) => Promise<void>;

/**
 * The UI's page outside /ui/: the box page a browser gets at `/ORG/BOX` (registry/catalog/routes.ts).
 * Its scripts and styles are linked from /ui/assets/, so it works at any path.
 */
export function uiPage(dir: string): UiPage {
  const index = join(resolve(dir), 'index.html');
  return async (ctx, status) => {
    const size = await fileSize(index);
    if (size === undefined) return text(ctx, 503, NOT_BUILT);
    // The path is not under /ui/, so it was given the API's policy, under which the page cannot load its scripts.
    setUiPageHeaders(ctx);
    return send(ctx, index, size, false, status);
  };
}

/**
 * Serves the built web UI at /ui/ (and sends / there). Paths no file answers are the UI's routes
 * and get index.html; a missing asset is a plain 404.
 */
export function webUi(dir: string): Middleware {
  const root = resolve(dir);
  const serve: Middleware = async (ctx, next) => {
    if (ctx.path === '/' || ctx.path === '/ui') {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
      ctx.redirect('/ui/');
      return;
    }
    if (!ctx.path.startsWith('/ui/')) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      return text(ctx, 405, 'The web UI is read-only: use GET.\n');
    }
    const segments = segmentsOf(ctx.path);
    if (!segments) return text(ctx, 400, 'Bad path: ".." and encoded separators are not allowed.\n');
    const index = join(root, 'index.html');
    const indexSize = await fileSize(index);
    if (indexSize === undefined) return text(ctx, 503, NOT_BUILT);
    const file = join(root, ...segments);
    if (!file.startsWith(root + sep) && file !== root) return text(ctx, 400, 'Bad path.\n');
    const size = segments.length > 0 ? await fileSize(file) : undefined;
    if (size !== undefined) return send(ctx, file, size, segments[0] === 'assets');
    if (isAssetPath(segments)) return text(ctx, 404, `No file ${ctx.path} in the web UI.\n`);
    return send(ctx, index, indexSize, false);
  };
  // Every API request passes here first: decide without an async frame.
  return (ctx, next) => (isUiPath(ctx.path) ? serve(ctx, next) : next());
}
