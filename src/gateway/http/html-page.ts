/**
 * The few HTML pages the gateway serves to a person (pairing approval, owner sign-in), written the same
 * way: one inline style and one inline script, each allowed only by this response's nonce. The headers
 * forbid framing (clickjacking), sniffing, caching and referrers; the CSP allows nothing else but
 * same-origin fetches.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function securityHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "form-action 'none'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  };
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{color:#666}
dd{margin:0;word-break:break-all}#code{font:600 2rem ui-monospace,monospace;letter-spacing:.15em}
code{font:.95em ui-monospace,monospace;background:#f1f1f4;padding:.1em .3em;border-radius:4px}
button{font:inherit;padding:.5rem 1.4rem;margin-right:.6rem;border-radius:6px;border:1px solid #888;cursor:pointer}
button:disabled{opacity:.5;cursor:default}[hidden]{display:none!important}
#approve{background:#0b57d0;color:#fff;border-color:#0b57d0}#status{margin-top:1rem;font-weight:600}`;

/** Writes a page; `body` is trusted HTML (escape every value in it), `script` runs under the nonce. */
export function renderHtmlPage(
  res: ServerResponse,
  page: { status?: number; title: string; body: string; script?: string },
): void {
  const nonce = randomBytes(16).toString('base64');
  const script = page.script ? `<script nonce="${nonce}">${page.script}</script>` : '';
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(page.title)}</title>
<style nonce="${nonce}">${STYLE}</style></head><body>${page.body}${script}</body></html>`;
  res.writeHead(page.status ?? 200, { ...securityHeaders(nonce), 'content-length': Buffer.byteLength(html) });
  res.end(html);
}
