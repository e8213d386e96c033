/**
 * The approval page a person sees at `GET /pair/{id}`: the extension's name, origin and code, with
 * Approve and Deny. Both buttons POST JSON carrying the page's anti-CSRF token from a script allowed
 * only by this response's nonce. The headers forbid framing (clickjacking), sniffing, caching and
 * referrers; the CSP allows nothing but that one script, its own style and same-origin fetches.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { PairingRequest } from './pending-pairings.js';

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

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
button{font:inherit;padding:.5rem 1.4rem;margin-right:.6rem;border-radius:6px;border:1px solid #888;cursor:pointer}
#approve{background:#0b57d0;color:#fff;border-color:#0b57d0}#status{margin-top:1rem;font-weight:600}`;

// Runs in the page: sends the decision with the page token, then shows what happened.
const SCRIPT = `const root=document.getElementById('pairing');
async function decide(what){for(const b of document.querySelectorAll('button'))b.disabled=true;
const status=document.getElementById('status');
try{const r=await fetch(root.dataset.base+'/'+what,{method:'POST',headers:{'content-type':'application/json'},
body:JSON.stringify({page_token:root.dataset.token}),credentials:'omit',cache:'no-store'});
const body=await r.json().catch(()=>({}));
status.textContent=r.ok?(what==='approve'?'Approved. The extension is now paired; you can close this tab.':'Denied. The extension was not paired.')
:('Not done: '+((body.error&&body.error.message)||r.status));}
catch(e){status.textContent='Not done: the gateway did not answer.';}}
document.getElementById('approve').addEventListener('click',()=>decide('approve'));
document.getElementById('deny').addEventListener('click',()=>decide('deny'));`;

export function renderApprovalPage(res: ServerResponse, request: PairingRequest): void {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>Pair a browser extension with tabgate</title>
<style nonce="${nonce}">${STYLE}</style></head><body>
<main id="pairing" data-base="/pair/${encodeURIComponent(request.id)}" data-token="${escapeHtml(request.pageToken)}">
<h1>Pair a browser extension with tabgate?</h1>
<p>Approve only if you just asked for this in the extension and it shows the same code.
A paired extension lets agents you run through this gateway control the tabs you share with them.</p>
<p id="code">${escapeHtml(request.code)}</p>
<dl><dt>Extension</dt><dd>${escapeHtml(request.name)}</dd><dt>Origin</dt><dd>${escapeHtml(request.origin)}</dd></dl>
<p><button id="approve" type="button">Approve</button><button id="deny" type="button">Deny</button></p>
<p id="status" role="status"></p></main>
<script nonce="${nonce}">${SCRIPT}</script></body></html>`;
  res.writeHead(200, { ...securityHeaders(nonce), 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

/** A page for a request that cannot be decided (unknown, expired, already decided). */
export function renderPageError(res: ServerResponse, status: number, message: string): void {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tabgate pairing</title>
<style nonce="${nonce}">${STYLE}</style></head><body><h1>Nothing to approve</h1><p>${escapeHtml(message)}</p></body></html>`;
  res.writeHead(status, { ...securityHeaders(nonce), 'content-length': Buffer.byteLength(html) });
  res.end(html);
}
