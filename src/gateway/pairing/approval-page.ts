/**
 * The approval page a person sees at `GET /pair/{id}`: the extension's name, origin and code, with
 * Approve and Deny. Showing it proves nothing; deciding needs the owner's signed-in browser session
 * (operator-auth.ts): each button posts the page's anti-CSRF token with the session's proof header and
 * cookie. A browser that is not signed in is told how to sign in instead.
 */
import type { ServerResponse } from 'node:http';
import { escapeHtml, renderHtmlPage } from '../http/html-page.js';
import { OPERATOR_PROOF_HEADER } from '../operator/operator-auth.js';
import { OPERATOR_PROOF_STORAGE_KEY } from '../operator/sign-in-page.js';
import type { PairingRequest } from './pending-pairings.js';

// Runs in the page: sends the decision with the page token and the owner's proof, then shows the outcome.
const SCRIPT = `const root=document.getElementById('pairing');
const proof=localStorage.getItem(${JSON.stringify(OPERATOR_PROOF_STORAGE_KEY)})||'';
const signIn=document.getElementById('sign-in');const status=document.getElementById('status');
function needSignIn(){signIn.hidden=false;for(const b of document.querySelectorAll('button'))b.disabled=true;}
if(!proof)needSignIn();
async function decide(what){for(const b of document.querySelectorAll('button'))b.disabled=true;
try{const r=await fetch(root.dataset.base+'/'+what,{method:'POST',headers:{'content-type':'application/json',${JSON.stringify(OPERATOR_PROOF_HEADER)}:proof},
body:JSON.stringify({page_token:root.dataset.token}),credentials:'same-origin',cache:'no-store'});
const body=await r.json().catch(()=>({}));const code=body.error&&body.error.code;
if(code==='operator_required'){needSignIn();status.textContent='Not done: this browser is not signed in as the owner of this gateway.';return;}
status.textContent=r.ok?(what==='approve'?'Approved. The extension is now paired; you can close this tab.':'Denied. The extension was not paired.')
:('Not done: '+((body.error&&body.error.message)||r.status));}
catch(e){status.textContent='Not done: the gateway did not answer.';}}
document.getElementById('approve').addEventListener('click',()=>decide('approve'));
document.getElementById('deny').addEventListener('click',()=>decide('deny'));`;

export function renderApprovalPage(res: ServerResponse, request: PairingRequest): void {
  const code = escapeHtml(request.code);
  renderHtmlPage(res, {
    title: 'Pair a browser extension with tabgate',
    body: `<main id="pairing" data-base="/pair/${encodeURIComponent(request.id)}" data-token="${escapeHtml(request.pageToken)}">
<h1>Pair a browser extension with tabgate?</h1>
<p>Approve only if you just asked for this in the extension and it shows the same code.
A paired extension lets agents you run through this gateway control the tabs you share with them.</p>
<p id="code">${code}</p>
<dl><dt>Extension</dt><dd>${escapeHtml(request.name)}</dd><dt>Origin</dt><dd>${escapeHtml(request.origin)}</dd></dl>
<div id="sign-in" hidden><p><strong>Only the owner of this gateway may approve.</strong> In the terminal where
<code>tabgate serve</code> runs, open the sign-in link it printed for this request, or run
<code>tabgate pair approve ${code}</code>. (<code>tabgate sign-in</code> prints a new sign-in link.)</p></div>
<p><button id="approve" type="button">Approve</button><button id="deny" type="button">Deny</button></p>
<p id="status" role="status"></p></main>`,
    script: SCRIPT,
  });
}

/** A page for a request that cannot be decided (unknown, expired, already decided). */
export function renderPageError(res: ServerResponse, status: number, message: string): void {
  renderHtmlPage(res, {
    status,
    title: 'tabgate pairing',
    body: `<h1>Nothing to approve</h1><p>${escapeHtml(message)}</p>`,
  });
}
