/**
 * The shared session's sites in the popup: what it asks to open (Grant / Deny) and what the person
 * allowed (Revoke). Only this page, the person's own, can make those decisions; the worker passes them
 * to the gateway with the pairing token, which the agent never holds.
 */
import type { SitesView } from '../messages.js';
import { heldPress, listsChanged } from './held-buttons.js';
import { $ } from './view.js';

export type SiteDecision = 'grant' | 'deny' | 'revoke';

let shown = '';

function row(
  site: string,
  buttons: [SiteDecision, string][],
  decide: (d: SiteDecision, site: string) => void,
) {
  const item = document.createElement('li');
  item.className = 'site';
  const name = document.createElement('span');
  name.textContent = site;
  item.append(name);
  for (const [decision, label] of buttons) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = decision === 'grant' ? '' : 'secondary';
    button.dataset.site = site;
    button.dataset.decision = decision;
    button.textContent = label;
    button.addEventListener('click', (event) => {
      if (!heldPress(event)) decide(decision, site);
    });
    item.append(button);
  }
  return item;
}

/** Draws the lists; only on change, so a button never moves under the pointer. */
export function renderSites(
  view: SitesView & { shared_origin: string | null },
  decide: (decision: SiteDecision, site: string) => void,
): void {
  const key = JSON.stringify(view);
  if (key === shown) return;
  shown = key;
  const origin = view.shared_origin ?? 'no site';
  $('sites-summary').textContent = !view.loaded
    ? `Sites: only ${origin} until the gateway's site policy is read.`
    : view.mode === 'ask'
      ? `Sites: ${origin}, and what you allow here.`
      : `Sites: ${origin} and the gateway's allow list (safety mode ${view.mode ?? ''}).`;
  $('site-requests-title').hidden = view.requested.length === 0;
  $('site-requests').replaceChildren(
    ...view.requested.slice(0, 50).map((site) =>
      row(
        site,
        [
          ['grant', 'Grant'],
          ['deny', 'Deny'],
        ],
        decide,
      ),
    ),
  );
  $('site-grants-title').hidden = view.granted.length === 0;
  $('site-grants').replaceChildren(
    ...view.granted.slice(0, 50).map((site) => row(site, [['revoke', 'Revoke']], decide)),
  );
  listsChanged();
}

/** A decision was made: the next render draws whatever the gateway now holds. */
export function sitesChanged(): void {
  shown = '';
}
