/**
 * Navigation: the URL policy of protocol (the same for every backend), `Page.navigate` with a wait for
 * the load capped by the command timeout, and back through the navigation history, which works even
 * when the entries never had a user activation (Chromium's history intervention skips those for
 * `history.back()`-style APIs: `chrome.tabs.goBack` then fails with "Cannot find a next page in history.").
 */
import { checkNavigationUrl, TabgateError, type PageInfo } from '../protocol/index.js';
import type { NavigationHistory } from './cdp-types.js';
import type { Tab } from './tab.js';

export interface UrlRules {
  /** A remote browser (provider, CDP URL): private addresses are refused unless allowed. */
  remote: boolean;
  allowPrivateUrls: boolean;
}

export function checkUrl(raw: string, rules: UrlRules): URL {
  const verdict = checkNavigationUrl(raw);
  if (verdict.kind === 'invalid')
    throw new TabgateError('invalid_url', `Cannot open this URL: ${verdict.reason}.`);
  if (verdict.kind === 'metadata')
    throw new TabgateError('metadata_url_blocked', `Refused: ${verdict.reason}.`);
  if (verdict.private && rules.remote && !rules.allowPrivateUrls) {
    throw new TabgateError(
      'private_url_blocked',
      `Refused: ${verdict.url.hostname} is a private or internal address and this browser is remote.`,
    );
  }
  return verdict.url;
}

export async function pageInfo(tab: Tab): Promise<PageInfo> {
  const history = await tab.page.send<NavigationHistory>('Page.getNavigationHistory');
  const entry = history.entries[history.currentIndex];
  return { url: entry?.url ?? 'about:blank', title: entry?.title ?? '' };
}

export async function navigate(
  tab: Tab,
  raw: string,
  rules: UrlRules,
  timeoutMs: number,
): Promise<PageInfo & { status: number | null }> {
  const url = checkUrl(raw, rules);
  const result = await tab.page.send<{ loaderId?: string; errorText?: string }>('Page.navigate', {
    url: url.href,
  });
  if (result.errorText) {
    throw new TabgateError('navigation_failed', `Could not open ${url.href}: ${result.errorText}.`);
  }
  const loaderId = result.loaderId;
  if (loaderId) {
    const loaded = await tab.waitUntil(() => tab.reached(loaderId, 'load'), timeoutMs);
    if (tab.crashed) throw crashedTab();
    if (!loaded && !tab.reached(loaderId, 'DOMContentLoaded')) {
      throw new TabgateError(
        'navigation_timeout',
        `${url.href} did not load within ${Math.round(timeoutMs / 1000)} s.`,
      );
    }
  }
  const info = await pageInfo(tab);
  await refuseLanding(tab, info.url, rules);
  return { ...info, status: loaderId ? tab.documentStatus(loaderId) : null };
}

/** A redirect must not land where a direct navigation would have been refused. */
async function refuseLanding(tab: Tab, landed: string, rules: UrlRules): Promise<void> {
  try {
    checkUrl(landed, rules);
  } catch (error) {
    if (error instanceof TabgateError && error.code !== 'invalid_url') {
      await tab.page.send('Page.navigate', { url: 'about:blank' });
      throw new TabgateError(
        error.code,
        `A redirect landed on a refused address; the tab was blanked. ${error.message}`,
      );
    }
  }
}

export async function goBack(tab: Tab, timeoutMs: number): Promise<PageInfo> {
  const history = await tab.page.send<NavigationHistory>('Page.getNavigationHistory');
  const previous = history.entries[history.currentIndex - 1];
  if (!previous) throw new TabgateError('navigation_failed', 'This tab has no previous page to go back to.');
  const navigations = tab.navigations;
  const sameDocument = tab.sameDocumentNavigations;
  await tab.page.send('Page.navigateToHistoryEntry', { entryId: previous.id });
  const moved = await tab.waitUntil(
    () => tab.navigations > navigations || tab.sameDocumentNavigations > sameDocument,
    timeoutMs,
  );
  if (!moved) throw new TabgateError('navigation_timeout', 'Going back did not finish in time.');
  if (tab.navigations > navigations) {
    const loaderId = tab.mainLoaderId;
    await tab.waitUntil(() => tab.reached(loaderId, 'load') || !tab.loading, timeoutMs);
  }
  return pageInfo(tab);
}

export function crashedTab(): TabgateError {
  return new TabgateError(
    'browser_crashed',
    'The tab crashed while loading; the next call opens a fresh tab.',
  );
}
