/**
 * `GET /operator/sign-in#code=…&next=…`: the page a one-time sign-in link opens. The code rides in the
 * fragment, so it never reaches a request line, a log or a Referer; the page posts it once, keeps the
 * session's proof in this origin's localStorage (the cookie is set by the response), wipes the fragment
 * from history, and goes on to `next` when that is a path on this gateway.
 */
import type { ServerResponse } from 'node:http';
import { renderHtmlPage } from '../http/html-page.js';

export const OPERATOR_PROOF_STORAGE_KEY = 'tabgate_operator_proof';
export const SIGN_IN_PATH = '/operator/sign-in';

const SCRIPT = `const params=new URLSearchParams(location.hash.slice(1));
history.replaceState(null,'',location.pathname);
const status=document.getElementById('status');
const code=params.get('code')||'';const next=params.get('next')||'';
(async()=>{if(!code){status.textContent='This sign-in link is incomplete. Run tabgate sign-in in your terminal for a new one.';return;}
try{const r=await fetch(${JSON.stringify(SIGN_IN_PATH)},{method:'POST',headers:{'content-type':'application/json'},
body:JSON.stringify({code}),credentials:'same-origin',cache:'no-store'});
const body=await r.json().catch(()=>({}));
if(!r.ok){status.textContent='Not signed in: '+((body.error&&body.error.message)||r.status);return;}
localStorage.setItem(${JSON.stringify(OPERATOR_PROOF_STORAGE_KEY)},body.proof);
status.textContent='Signed in as the owner of this gateway, in this browser, for 12 hours.';
if(/^\\/(?![\\/\\\\])/.test(next))location.replace(next);}
catch(e){status.textContent='Not signed in: the gateway did not answer.';}})();`;

export function renderSignInPage(res: ServerResponse): void {
  renderHtmlPage(res, {
    title: 'Sign in to tabgate',
    body: `<main><h1>Signing in to tabgate</h1><p id="status" role="status">Signing in…</p></main>`,
    script: SCRIPT,
  });
}
