import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/schemas.js';
import { chooseLang, type Lang } from '../../lib/language.js';
import { HOME_TEXTS } from './home-texts.js';

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:40rem;padding:1rem;color:#1a1a1a}' +
  'a{color:#0b57d0}ul{padding-left:1.2rem}li{margin:.6rem 0}.muted{color:#555}' +
  'header{display:flex;justify-content:space-between;gap:1rem;flex-wrap:wrap;align-items:baseline}';
/** Strict CSP: nothing but this page's own style (by its hash); no script at all. */
const CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The home page in `lang`: links to the portal, the console and the API documentation. */
function homePage(lang: Lang, version: string): string {
  const t = HOME_TEXTS[lang];
  const other: Lang = lang === 'ru' ? 'en' : 'ru';
  const item = (href: string, name: string, hint: string, testid: string) =>
    `<li><a href="${href}" data-testid="${testid}">${html(name)}</a> <span class="muted">${html(hint)}</span></li>`;
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(t.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${html(t.title)}</h1><a href="/?lang=${other}" lang="${other}" hreflang="${other}" data-testid="lang">${html(t.switchTo)}</a></header>
<main>
<p>${html(t.intro)}</p>
<ul>
${item('/portal', t.portal, t.portalHint, 'portal')}
${item('/backoffice', t.console, t.consoleHint, 'console')}
${item('/docs', t.docs, t.docsHint, 'docs')}
</ul>
<p class="muted"><a href="/docs/json">${html(t.json)}</a> · ${html(t.version)} ${html(version)}</p>
</main>
</body>
</html>
`;
}

/**
 * Whether an Accept header names `text/html` above `application/json` (a browser); `*\/*` alone
 * (curl) and `application/json` get the JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  const weight = (type: string) => {
    for (const part of (accept ?? '').toLowerCase().split(',')) {
      const [media = '', ...params] = part.trim().split(';');
      if (media.trim() !== type) continue;
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return q ? Number(q.slice(2)) || 0 : 1;
    }
    return 0;
  };
  const html = weight('text/html');
  return html > 0 && html > weight('application/json');
}

const HomeJson = Type.Object({
  name: Type.String({ description: 'The service' }),
  version: Type.String(),
  links: Type.Object({ portal: Type.String(), console: Type.String(), docs: Type.String() }),
});

/**
 * `GET /`: a small page (Russian or English: `?lang=`, else Accept-Language) linking the merchant
 * portal, the operators' console and the API documentation; with `Accept: application/json`, the
 * service's name and version (README "Two commands").
 */
export function homeRoutes(app: App, deps: { name: string; version: string }) {
  app.get(
    '/',
    {
      schema: {
        tags: ['ops'],
        summary: "The service's name and version (JSON), or a page linking the portal, console and docs",
        querystring: Type.Object({ lang: Type.Optional(Type.String({ maxLength: 8 })) }),
        response: {
          200: Type.Union([HomeJson, Type.String({ description: 'The page (text/html)' })]),
        },
      },
    },
    async (request, reply) => {
      reply.header('vary', 'Accept, Accept-Language');
      if (!prefersHtml(request.headers.accept))
        return {
          name: deps.name,
          version: deps.version,
          links: { portal: '/portal', console: '/backoffice', docs: '/docs' },
        };
      const lang = chooseLang(request.query.lang, undefined, request.headers['accept-language'], 'ru');
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', CSP)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .send(homePage(lang, deps.version));
    },
  );
}
