/**
 * The one redaction of URLs (docs/decisions.md section 34): what `GET /admin/chains` shows is what
 * audit entries, logs, metrics, errors and every answer show. A provider URL may carry credentials
 * (`https://user:pass@host`), a key in its query (`?apikey=`) or in its path (Infura, Alchemy,
 * QuickNode put keys there): user name, password and query are removed and every path part of 20
 * characters or more becomes `***`; the scheme, host, port and short path parts stay, so an operator
 * still sees which provider it is.
 */
export function redactUrl(url: string): string;
export function redactUrl(url: string | null): string | null;
export function redactUrl(url: string | null): string | null {
  if (!url) return url;
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    const hadQuery = u.search !== '';
    u.search = '';
    u.hash = '';
    u.pathname = u.pathname
      .split('/')
      .map((part) => (part.length >= 20 ? '***' : part))
      .join('/');
    return `${u.toString()}${hadQuery ? '?***' : ''}`;
  } catch {
    return '***';
  }
}

/** http(s) URLs inside free text, up to the first character that cannot be part of one. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>`]+/gi;

/**
 * Free text (an error message, a log line) with every http(s) URL in it redacted by `redactUrl`,
 * and every one of `secrets` (API keys, passwords; 4 characters or more) replaced by `***`.
 */
export function redactText(text: string, secrets: ReadonlyArray<string | null | undefined> = []): string {
  let out = text.replace(URL_IN_TEXT, (url) => {
    // A sentence's full stop or a closing bracket right after the URL is not part of it.
    const trail = /[.,;:)\]]+$/.exec(url)?.[0] ?? '';
    return redactUrl(url.slice(0, url.length - trail.length)) + trail;
  });
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('***');
  }
  return out;
}
