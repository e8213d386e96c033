/**
 * Taking over a tab in the middle of a navigation. Chromium holds every page-bound command of a DevTools
 * session attached while a navigation is pending (Page.enable, Runtime.enable, Page.getFrameTree, …)
 * until that navigation commits, and a navigation to a server that never answers never commits. That is
 * what a restarted extension worker meets when its previous life died while the shared tab loaded a slow
 * page: the old debugger session's state is lost, a fresh one is attached, and the tab's initialisation
 * would wait for a document that never comes, taking every later command of that tab with it. A session
 * that was attached before the navigation began is not held, which is why the same tab recovers when
 * the worker survives. Browser-side commands (Page.stopLoading, Page.getNavigationHistory) still answer.
 */
import { TabgateError } from '../protocol/index.js';
import type { CdpSession } from './transport.js';

/** How long a stopped navigation may take to release the held commands before the takeover fails. */
const RELEASE_MS = 10_000;

function settledWithin<T>(work: Promise<T>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([work.then(() => true), timeout]).finally(() => clearTimeout(timer));
}

/**
 * Waits for a fresh session's setup; if it is still held after `graceMs` (a navigation that had not
 * committed when we attached), stops that navigation, which releases the held commands, and says so.
 * Fails with `command_timeout` when even that does not release them (a page that does not answer).
 */
export async function pastStalledNavigation<T>(
  page: CdpSession,
  setup: Promise<T>,
  graceMs: number,
  notice: (text: string) => void,
): Promise<T> {
  // Whatever happens below, a late failure of the setup must not surface as an unhandled rejection.
  setup.catch(() => undefined);
  if (await settledWithin(setup, graceMs)) return setup;
  await page.send('Page.stopLoading').catch(() => undefined);
  notice(
    `The tab was still loading a page that had not answered after ${Math.round(graceMs / 1000)} s when tabgate took it over; that load was stopped.`,
  );
  if (await settledWithin(setup, RELEASE_MS)) return setup;
  throw new TabgateError('command_timeout', 'The tab does not answer; reload it or share another tab.');
}
