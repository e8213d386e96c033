/**
 * Inside the extension declarativeNetRequest rules refuse cloud metadata addresses and the sites the
 * session may not open (the engine holds no browser-level guard there), and Chromium shows its error
 * page, whose history entry still names the refused address. The tools report such a page as the error page it is, so the agent is never told it
 * is at the address it was kept from. (Where the engine's own guard refuses, nothing commits at all.)
 */
import { checkNavigationUrl, type PageInfo } from '../protocol/index.js';
import type { FrameInfo } from './cdp-types.js';
import type { Refusal } from './network-guard.js';

export const ERROR_PAGE_URL = 'chrome-error://chromewebdata/';

/**
 * Judges the address of an error page by the site rules that refused it at the network layer; null
 * when they allow it (the page failed for some other reason).
 */
export type ErrorPageJudge = (url: string, frameId: string) => Refusal | null;

/**
 * The refusal behind a main frame that just committed, or null when it is not a refused page.
 * `judgeSite`: the site rules' verdict on its address, where they refuse at the network layer.
 */
export function refusalOfErrorPage(frame: FrameInfo, judgeSite?: ErrorPageJudge): Refusal | null {
  const failed = frame.unreachableUrl;
  if (!failed) return null;
  const verdict = checkNavigationUrl(failed);
  if (verdict.kind !== 'metadata')
    return verdict.kind === 'ok' ? (judgeSite?.(failed, frame.id) ?? null) : null;
  return {
    url: failed,
    frameId: frame.id,
    resourceType: 'Document',
    code: 'metadata_url_blocked',
    reason: verdict.reason,
  };
}

export function refusedPageInfo(refusal: Refusal): PageInfo {
  return { url: ERROR_PAGE_URL, title: `Refused by tabgate: ${refusal.reason}` };
}
