import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { App } from '../../http/schemas.js';
import type { PortalService } from './portal-service.js';
import { portalUserOf, renderPortal } from './portal-session.js';

const require = createRequire(import.meta.url);
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
/** uPlot (MIT, a small chart library) as its authors build it for browsers, served from our origin. */
const UPLOT_JS = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'));
const UPLOT_CSS = readFileSync(require.resolve('uplot/dist/uPlot.min.css'));
const REPORTS_JS = readFileSync(here('./assets/reports.js'));
const COPY_JS = readFileSync(here('./assets/copy.js'));

/** The chart's script and styles and the copy buttons' script, public like the portal's stylesheet. */
export function reportAssets(scope: App) {
  const asset = (path: string, type: string, body: Buffer) =>
    scope.get(path, async (_r, reply) =>
      reply.header('content-type', type).header('cache-control', 'public, max-age=300').send(body),
    );
  asset('/portal/assets/uplot.js', 'text/javascript; charset=utf-8', UPLOT_JS);
  asset('/portal/assets/uplot.css', 'text/css; charset=utf-8', UPLOT_CSS);
  asset('/portal/assets/reports.js', 'text/javascript; charset=utf-8', REPORTS_JS);
  asset('/portal/assets/copy.js', 'text/javascript; charset=utf-8', COPY_JS);
}

/**
 * The merchant's dashboard (docs/decisions.md section 30): today's and the last 30 days' count, volume,
 * conversion and average time to pay per payment type, server-rendered (readable without script),
 * with a chart drawn in the browser from `/portal/reports.json`, which answers the same figures as
 * `GET /merchant/reports`. Live orders only.
 */
export function portalReports(pages: App, deps: { portal: PortalService }) {
  pages.get('/portal/reports', async (request, reply) => {
    const report = await deps.portal.reports(portalUserOf(request));
    return renderPortal(request, reply, 'reports.eta', { report });
  });
  pages.get('/portal/reports.json', async (request, reply) =>
    reply
      .type('application/json')
      .send({ success: true, data: await deps.portal.reports(portalUserOf(request)) }),
  );
}
