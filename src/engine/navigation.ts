/**
 * Navigation: the URL policy of protocol (the same for every backend) and, where the engine holds the
 * browser, the network guard's verdict before the browser is sent anywhere; `Page.navigate` with a wait
 * for the load capped by the command timeout; and back through the navigation history, which works even
 * when the entries never had a user activation (Chromium's history intervention skips those for
 * `history.back()`-style APIs: `chrome.tabs.goBack` then fails with "Cannot find a next page in history.").
 * Where a redirect goes is the network guard's to judge, hop by hop, before each request leaves the browser.
 */
import {
  checkNavigationUrl,
  TabgateError,
  type PageInfo,
  type RedirectHop,
  type SiteRefusalRule,
} from '../protocol/index.js';
import type { NavigationHistory } from './cdp-types.js';
import type { Refusal } from './network-guard.js';
import { refusedPageInfo } from './refused-page.js';
import type { Tab } from './tab.js';

export interface UrlRules {
  /** A remote browser (provider, CDP URL): private addresses are refused unless allowed. */
  remote: boolean;
  allowPrivateUrls: boolean;
}

/** How long a refused navigation may take to show its error page before the answer goes out anyway. */
const ERROR_PAGE_MS = 2_000;

/**
 * The string checks every backend makes. The private-address rule is the network guard's where there
 * is one (it knows what names resolve to and which private hosts are allowed); this is its fallback.
 */
export function checkUrl(raw: string, rules: UrlRules, guarded = false): URL {
  const verdict = checkNavigationUrl(raw);
  if (verdict.kind === 'invalid')
    throw new TabgateError('invalid_url', `Cannot open this URL: ${verdict.reason}.`);
  if (verdict.kind === 'metadata')
    throw new TabgateError('metadata_url_blocked', `Refused: ${verdict.reason}.`);
  if (!guarded && verdict.private && rules.remote && !rules.allowPrivateUrls) {
    throw new TabgateError(
      'private_url_blocked',
      `Refused: ${verdict.url.hostname} is a private or internal address and this browser is remote.`,
    );
  }
  return verdict.url;
}

export async function pageInfo(tab: Tab): Promise<PageInfo> {
  if (tab.refusedPage) return refusedPageInfo(tab.refusedPage);
  const history = await tab.page.send<NavigationHistory>('Page.getNavigationHistory');
  const entry = history.entries[history.currentIndex];
  return { url: entry?.url ?? 'about:blank', title: entry?.title ?? '' };
}

export async function navigate(
  tab: Tab,
  raw: string,
  rules: UrlRules,
  timeoutMs: number,
): Promise<NavigateOutcome> {
  const url = checkUrl(raw, rules, tab.guard !== undefined);
  if (tab.guard) {
    const verdict = await tab.guard.check(url.href, tab.mainFrameId);
    if (!verdict.allowed)
      throw new TabgateError(verdict.code, `Refused: ${verdict.reason}.`, ruleOf(verdict));
  }
  const deadline = performance.now() + timeoutMs;
  const before = { refused: tab.refusedNavigations, navigations: tab.navigations };
  tab.redirects.start();
  try {
    // A beforeunload question holds the navigation until it is answered: the answer goes out with it.
    const sent = tab.page.send<{ loaderId?: string; errorText?: string }>('Page.navigate', { url: url.href });
    const result = await tab.dialogs.unlessDialog(answeredBy(sent, deadline), null);
    if (result === NO_RESPONSE) {
      // Chromium answers Page.navigate only once the server does; one that never does is this timeout,
      // and the load is stopped so the tab is free for the next call.
      await tab.page.send('Page.stopLoading').catch(() => undefined);
      throw timedOut(url, timeoutMs);
    }
    if (!result) return { ...(await pageInfo(tab)), status: null };
    if (result.errorText) throw await failure(tab, url, result.errorText, before);
    const loaderId = result.loaderId;
    if (!loaderId) return { ...(await pageInfo(tab)), status: null };
    const loaded = await tab.waitUntil(
      () => tab.settled(loaderId) || tab.dialogs.open !== null,
      deadline - performance.now(),
    );
    if (tab.crashed) throw crashedTab();
    if (!loaded && !tab.reached(loaderId, 'DOMContentLoaded') && !tab.dialogs.open)
      throw timedOut(url, timeoutMs);
    if (loaded) await followClientRedirects(tab, url, deadline, timeoutMs);
    const redirects = tab.redirects.finish();
    const info = await pageInfo(tab);
    return {
      ...info,
      status: tab.documentStatus(tab.mainLoaderId) ?? tab.documentStatus(loaderId),
      ...(redirects.length > 0 ? { redirects } : {}),
    };
  } finally {
    tab.redirects.finish();
  }
}

const NO_RESPONSE = Symbol('no response');

/** The command's answer, or NO_RESPONSE if it has none by `deadline` (a late failure is swallowed). */
function answeredBy<T>(command: Promise<T>, deadline: number): Promise<T | typeof NO_RESPONSE> {
  command.catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<typeof NO_RESPONSE>((resolve) => {
    timer = setTimeout(() => resolve(NO_RESPONSE), Math.max(0, deadline - performance.now()));
  });
  return Promise.race([command, expired]).finally(() => clearTimeout(timer));
}

export type NavigateOutcome = PageInfo & { status: number | null; redirects?: RedirectHop[] };

/**
 * After the document loads, how long the page may take to send the browser on before it counts as
 * settled. A meta refresh of 0 and a script redirect "after 50 ms" both fall well inside; Playwright
 * MCP, for comparison, waits 500 ms after every action.
 */
const CLIENT_REDIRECT_WINDOW_MS = 120;
/** A page that asked to go elsewhere but never started loading within this is left where it is. */
const START_LOADING_MS = 2_000;
/** Pages that keep sending the browser on (a loop of scripts) are followed this far, then answered. */
const MAX_CLIENT_HOPS = 10;

/**
 * Follows meta refreshes, `Refresh` headers, auto-submitted forms and script redirects to the page that
 * finally settles, so the answer (and the snapshot taken next) is of that page and never of one that is
 * being torn down. HTTP redirects need no following: they belong to the navigation itself.
 */
async function followClientRedirects(tab: Tab, url: URL, deadline: number, timeoutMs: number) {
  for (let hop = 0; hop < MAX_CLIENT_HOPS && tab.dialogs.open === null; hop++) {
    const requested = tab.requestedNavigations;
    const navigations = tab.navigations;
    const moving = () => tab.requestedNavigations > requested || tab.navigations > navigations || tab.loading;
    const left = () => deadline - performance.now();
    if (!(await tab.waitUntil(moving, Math.min(CLIENT_REDIRECT_WINDOW_MS, left())))) return;
    await tab.waitUntil(
      () => tab.loading || tab.navigations > navigations,
      Math.min(START_LOADING_MS, left()),
    );
    const settled = await tab.waitUntil(
      () =>
        tab.dialogs.open !== null ||
        (!tab.loading && (tab.navigations === navigations || tab.settled(tab.mainLoaderId))),
      left(),
    );
    if (tab.crashed) throw crashedTab();
    if (!settled && !tab.reached(tab.mainLoaderId, 'DOMContentLoaded')) throw timedOut(url, timeoutMs);
    if (!settled) return;
  }
}

function timedOut(url: URL, timeoutMs: number): TabgateError {
  return new TabgateError(
    'navigation_timeout',
    `${url.href} did not load within ${Math.round(timeoutMs / 1000)} s.`,
  );
}

/**
 * Why a navigation failed. The guard tells the tab of a refusal before it aborts the request, so a
 * refusal of this navigation or of one of its redirects is known here, and the tab stayed where it was.
 * Inside the extension a declarativeNetRequest rule refuses instead, and the error page it leaves names
 * the address: the answer waits for that page, so the next call finds the tab settled on it.
 */
async function failure(
  tab: Tab,
  url: URL,
  errorText: string,
  before: { refused: number; navigations: number },
): Promise<TabgateError> {
  if (tab.refusedNavigations > before.refused && tab.lastRefusal)
    return refusedError(url, tab.lastRefusal, 'The tab stayed on the page it was on.');
  // Any other failure but an abort (a download, a 204) commits Chromium's error page in its own
  // process: until it has, the tab is between pages and the next call's first command is refused
  // ("Not attached to an active page"). The answer waits for it, as a person sees the error page.
  if (!/ERR_ABORTED/.test(errorText))
    await tab.waitUntil(() => tab.navigations > before.navigations, ERROR_PAGE_MS);
  if (/ERR_BLOCKED_BY_CLIENT/.test(errorText)) {
    const refusal = tab.navigations > before.navigations ? tab.refusedPage : null;
    if (refusal) return refusedError(url, refusal, 'The tab shows an error page.');
  }
  return new TabgateError('navigation_failed', `Could not open ${url.href}: ${errorText}.`);
}

/** The site rule that refused, for the error's details (the audit row names it). */
const ruleOf = (refused: { rule?: SiteRefusalRule }) => (refused.rule ? { rule: refused.rule } : undefined);

function refusedError(url: URL, refusal: Refusal, where: string): TabgateError {
  const redirected =
    refusal.url === url.href ? '' : ` ${url.href} redirected to ${refusal.url.slice(0, 200)}.`;
  return new TabgateError(
    refusal.code,
    `Refused: ${refusal.reason}.${redirected} Nothing was loaded from there. ${where}`,
    ruleOf(refusal),
  );
}

/** One step back (-1) or forward (+1) in the tab's history. */
export async function goInHistory(tab: Tab, step: -1 | 1, timeoutMs: number): Promise<PageInfo> {
  const history = await tab.page.send<NavigationHistory>('Page.getNavigationHistory');
  const target = history.entries[history.currentIndex + step];
  if (!target) {
    throw new TabgateError(
      'no_history',
      `This tab has no ${step < 0 ? 'previous' : 'next'} page to go ${step < 0 ? 'back' : 'forward'} to.`,
    );
  }
  // A page restored from the back/forward cache makes no request for the guard to see: judged here.
  if (tab.guard) {
    const verdict = await tab.guard.check(target.url, tab.mainFrameId);
    if (!verdict.allowed)
      throw new TabgateError(
        verdict.code,
        `Refused: ${verdict.reason}. The tab stayed on the page it was on.`,
        ruleOf(verdict),
      );
  }
  const navigations = tab.navigations;
  const sameDocument = tab.sameDocumentNavigations;
  await tab.page.send('Page.navigateToHistoryEntry', { entryId: target.id });
  const moved = await tab.waitUntil(
    () =>
      tab.navigations > navigations ||
      tab.sameDocumentNavigations > sameDocument ||
      tab.dialogs.open !== null,
    timeoutMs,
  );
  if (!moved)
    throw new TabgateError(
      'navigation_timeout',
      `Going ${step < 0 ? 'back' : 'forward'} did not finish in time.`,
    );
  if (tab.navigations > navigations) await waitForLoad(tab, timeoutMs);
  return pageInfo(tab);
}

export const goBack = (tab: Tab, timeoutMs: number) => goInHistory(tab, -1, timeoutMs);

/** The current main document's load, or a dialog that blocks it. */
async function waitForLoad(tab: Tab, timeoutMs: number): Promise<void> {
  const loaderId = tab.mainLoaderId;
  await tab.waitUntil(
    () => tab.reached(loaderId, 'load') || !tab.loading || tab.dialogs.open !== null,
    timeoutMs,
  );
}

/** Reloads the page and waits for it to load again (the network guard judges the requests as always). */
export async function reload(tab: Tab, timeoutMs: number): Promise<PageInfo> {
  const navigations = tab.navigations;
  await tab.page.send('Page.reload', {});
  const moved = await tab.waitUntil(
    () => tab.navigations > navigations || tab.dialogs.open !== null,
    timeoutMs,
  );
  if (!moved) throw new TabgateError('navigation_timeout', 'The reload did not finish in time.');
  if (tab.crashed) throw crashedTab();
  await waitForLoad(tab, timeoutMs);
  return pageInfo(tab);
}

export function crashedTab(): TabgateError {
  return new TabgateError(
    'browser_crashed',
    'The tab crashed while loading; the next call opens a fresh tab.',
  );
}
