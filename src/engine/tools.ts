/**
 * The browser_* tools on the engine: one function per tool of the catalog, each returning the result
 * shape of protocol's results.ts. The same code serves the local Chromium, provider sessions, CDP URLs
 * and (over chrome.debugger) the extension, so the snapshot format, refs and semantics are identical.
 */
import {
  TabgateError,
  type SecretFill,
  type ToolInput,
  type ToolName,
  type ToolResults,
} from '../protocol/index.js';
import { fillSecret } from './secret-fill.js';
import { click, pressKey, settleAfterInput, typeInto } from './actions.js';
import { goBack, navigate, pageInfo } from './navigation.js';
import { screenshot } from './screenshot.js';
import { snapshotTab } from './snapshot.js';
import { answerSnapshot, outlineAnswer, type SnapshotQuery } from './snapshot-answer.js';
import { bindingOf } from './actions.js';
import { readTab } from './reader.js';
import { newBoundary } from './page-text-boundary.js';
import { pageSnapshot } from './snapshot-pager.js';
import type { EngineOptions, TabHost } from './tab-host.js';
import type { Tab } from './tab.js';

type Handler<N extends ToolName> = (
  host: TabHost,
  args: ToolInput<N>,
  options: EngineOptions,
  fill: SecretFill | undefined,
) => Promise<ToolResults[N]>;

const refOf = (ref: string) => (ref.startsWith('@') ? ref : `@${ref}`);

async function readSnapshot(tab: Tab, full: boolean, query: SnapshotQuery, options: EngineOptions) {
  if (query.ref) bindingOf(tab, refOf(query.ref));
  // Finding reads every line: compact mode folds runs of text a match may sit in.
  const walkFull = full || query.find !== undefined;
  const [snap, info] = await Promise.all([snapshotTab(tab, walkFull), pageInfo(tab)]);
  return { ...info, ...answerSnapshot(snap, query, options.snapshotMaxChars) };
}

/** How many times a page that moved while it was read (a late redirect) is read again once settled. */
const REREADS = 2;

/**
 * A page that navigates while we read it tears down the contexts the read runs in; that is the page's
 * doing, not a failure: the read waits for the new page to settle and reads that. An error on a page
 * that stood still is a real one and goes out as it is.
 */
async function rereadIfMoved<T>(tab: Tab, options: EngineOptions, read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const navigations = tab.navigations;
    try {
      return await read();
    } catch (error) {
      const moved = tab.navigations !== navigations || tab.loading;
      if (!moved || attempt >= REREADS || tab.crashed) throw error;
      await tab.waitUntil(() => !tab.loading && tab.settled(tab.mainLoaderId), options.commandTimeoutMs / 2);
    }
  }
}

function snapshotResult(tab: Tab, full: boolean, query: SnapshotQuery, options: EngineOptions) {
  return rereadIfMoved(tab, options, () => readSnapshot(tab, full, query, options));
}

const HANDLERS: { [N in ToolName]: Handler<N> } = {
  async browser_navigate(host, { url, snapshot }, options) {
    const tab = await host.activeTab();
    const navigated = await navigate(tab, url, options, Math.max(1000, options.commandTimeoutMs - 2000));
    if (snapshot === 'none') return navigated;
    if (snapshot === 'full')
      return { ...navigated, snapshot: await snapshotResult(tab, false, { offset: 0 }, options) };
    const outline = await rereadIfMoved(tab, options, async () => {
      const [snap, info] = await Promise.all([snapshotTab(tab, false), pageInfo(tab)]);
      return { ...info, ...outlineAnswer(snap, options.snapshotMaxChars) };
    });
    return { ...navigated, snapshot: outline };
  },
  async browser_snapshot(host, { full, offset, ref, find }, options) {
    const query = {
      offset: offset ?? 0,
      ...(ref ? { ref: refOf(ref) } : {}),
      ...(find !== undefined ? { find } : {}),
    };
    return snapshotResult(await host.activeTab(), full === true, query, options);
  },
  async browser_read(host, { offset }, options) {
    const tab = await host.activeTab();
    const [read, info] = await Promise.all([readTab(tab), pageInfo(tab)]);
    const frame = { boundary: newBoundary(read.origin), tool: 'browser_read' };
    const page = pageSnapshot(read.text, offset ?? 0, options.snapshotMaxChars, read.controls, frame);
    return { ...info, ...page, ref_count: read.refCount };
  },
  async browser_click(host, { ref }, options) {
    const tab = await host.activeTab();
    await click(tab, refOf(ref));
    await settleAfterInput(tab, options.commandTimeoutMs);
    return { clicked: refOf(ref) };
  },
  async browser_type(host, { ref, text, secret, submit }, options, fill) {
    const tab = await host.activeTab();
    if (secret !== undefined) {
      // The gateway resolves the name; a fill for another name is never used for this one.
      if (!fill || fill.name !== secret)
        throw new TabgateError('unknown_secret', `No vault secret named ${secret} reached this browser.`);
      await fillSecret(tab, refOf(ref), fill);
    } else await typeInto(tab, refOf(ref), text ?? '');
    if (submit) {
      await pressKey(tab, 'Enter', []);
      await settleAfterInput(tab, options.commandTimeoutMs);
    }
    return { typed_into: refOf(ref), submitted: submit === true, ...(secret ? { secret } : {}) };
  },
  async browser_press(host, { key, modifiers }, options) {
    const tab = await host.activeTab();
    await pressKey(tab, key, modifiers ?? []);
    if (key === 'Enter') await settleAfterInput(tab, options.commandTimeoutMs);
    const combo = [...(modifiers ?? []), key].join('+');
    return { pressed: combo };
  },
  async browser_scroll(host, { direction, amount }) {
    const tab = await host.activeTab();
    const contextId = await tab.pageWorlds.contextFor(tab.mainFrameId);
    const position = await tab.pageWorlds.run<{ x: number; y: number }>(contextId, 'scroll', {
      direction,
      amount: amount ?? null,
    });
    return { scrolled: direction, scroll_x: Math.round(position.x), scroll_y: Math.round(position.y) };
  },
  async browser_back(host, _args, options) {
    return goBack(await host.activeTab(), Math.max(1000, options.commandTimeoutMs - 2000));
  },
  async browser_screenshot(host, { full_page }) {
    return screenshot(await host.activeTab(), full_page === true);
  },
  async browser_tabs(host) {
    return { tabs: await host.listTabs() };
  },
  async browser_tab_activate(host, { tab_id }) {
    const tab = await host.activateTab(tab_id);
    return { activated: tab_id, ...(await pageInfo(tab)) };
  },
  async browser_console(host, { clear }) {
    const tab = await host.activeTab();
    const result = { messages: tab.console.messages, errors: tab.console.errors, cleared: clear === true };
    if (clear) tab.console.clear();
    return result;
  },
  async browser_get_images(host) {
    const tab = await host.activeTab();
    const contextId = await tab.pageWorlds.contextFor(tab.mainFrameId);
    return {
      images: await tab.pageWorlds.run<ToolResults['browser_get_images']['images']>(contextId, 'images'),
    };
  },
};

/** Runs one validated tool call; notices of what happened meanwhile ride along on object results. */
export async function runTool<N extends ToolName>(
  host: TabHost,
  tool: N,
  args: ToolInput<N>,
  options: EngineOptions,
  /** The vault secret of a `browser_type {secret}`, for that one fill. */
  fill?: SecretFill,
): Promise<ToolResults[N] & { notices?: string[] }> {
  const handler = HANDLERS[tool] as Handler<N>;
  const result = await handler(host, args, options, fill);
  const notices = await host.drainNotices();
  return notices.length > 0 ? { ...result, notices } : result;
}
