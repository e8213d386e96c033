/**
 * The browser_* tools on the engine: one function per tool of the catalog, each returning the result
 * shape of protocol's results.ts. The same code serves the local Chromium, provider sessions, CDP URLs
 * and (over chrome.debugger) the extension, so the snapshot format, refs and semantics are identical.
 */
import {
  getTool,
  parseKeyCombo,
  TabgateError,
  type DownloadInfo,
  type KeyModifier,
  type SecretFill,
  type ToolInput,
  type ToolName,
  type ToolResults,
  PAGE_INPUT_TOOLS,
} from '../protocol/index.js';
import { CallGate, originOfRef, type ActionGate } from './action-gate.js';
import { BETWEEN_DOCUMENTS_MS, isCdpFailure } from './transport.js';
import { fillSecret } from './secret-fill.js';
import { click, pressKey, settleAfterInput, typeInto } from './actions.js';
import { watchSubmit, type SubmitWatch } from './submit-watch.js';
import { describeDialog } from './dialogs.js';
import { fillForm, selectOptions } from './forms.js';
import { checkUrl, goBack, goInHistory, navigate, pageInfo, reload } from './navigation.js';
import { drag, hover } from './pointer.js';
import { upload } from './upload.js';
import { waitFor } from './wait.js';
import { screenshot } from './screenshot.js';
import { lastOrNewSnapshot, snapshotTab } from './snapshot.js';
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
  gate: CallGate | undefined,
) => Promise<ToolResults[N]>;

const refOf = (ref: string) => (ref.startsWith('@') ? ref : `@${ref}`);

async function readSnapshot(tab: Tab, full: boolean, query: SnapshotQuery, options: EngineOptions) {
  if (tab.dialogs.open) return dialogSnapshot(tab, options);
  if (query.ref) bindingOf(tab, refOf(query.ref));
  // Finding reads every line: compact mode folds runs of text a match may sit in.
  const walkFull = full || query.find !== undefined;
  // Reading on (an offset, a ref or a find) reads the walk the first answer made, while it stands.
  const readOn = query.offset > 0 || query.ref !== undefined || query.find !== undefined;
  const snapshot = readOn ? lastOrNewSnapshot(tab, walkFull) : snapshotTab(tab, walkFull);
  const [snap, info] = await Promise.all([snapshot, pageInfo(tab)]);
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

/**
 * While a dialog is open the page cannot be read (its renderer waits for the answer): the snapshot is
 * the dialog itself.
 */
async function dialogSnapshot(tab: Tab, options: EngineOptions) {
  const open = tab.dialogs.open;
  const text = open
    ? `dialog: ${describeDialog(open)}${open.type === 'prompt' ? ` default=${JSON.stringify(open.defaultPrompt)}` : ''}\n(the page is blocked until browser_dialog answers it)`
    : '';
  return { ...(await pageInfo(tab)), ...pageSnapshot(text, 0, options.snapshotMaxChars, []), ref_count: 0 };
}

/** `settleAfterInput`, unless the input opened a dialog: the page then waits for the answer. */
async function settle(tab: Tab, options: EngineOptions, watch?: SubmitWatch): Promise<void> {
  await tab.dialogs.unlessDialog(settleAfterInput(tab, options.commandTimeoutMs, watch), undefined);
}

/** How long after an action browser_downloads waits for a download it started to begin. */
const DOWNLOAD_GRACE_MS = 1_000;

/**
 * The downloads a navigation that Chromium abandoned (`ERR_ABORTED`) became, once they are written or
 * stopped; null when it became none, and the failure stands.
 */
async function downloadedInstead(
  host: TabHost,
  error: unknown,
  options: EngineOptions,
): Promise<DownloadInfo[] | null> {
  const ledger = host.downloads;
  if (!ledger || !(error instanceof TabgateError) || error.code !== 'navigation_failed') return null;
  if (!/ERR_ABORTED/.test(error.message)) return null;
  await ledger.settle(Math.min(10_000, options.commandTimeoutMs / 2), DOWNLOAD_GRACE_MS);
  const downloads = ledger.drain();
  return downloads.length > 0 ? downloads : null;
}

const HANDLERS: { [N in ToolName]: Handler<N> } = {
  async browser_navigate(host, { url, snapshot }, options) {
    const tab = await host.activeTab();
    let navigated;
    try {
      navigated = await navigate(tab, url, options, Math.max(1000, options.commandTimeoutMs - 2000));
    } catch (error) {
      const downloaded = await downloadedInstead(host, error, options);
      if (!downloaded) throw error;
      // A URL that is a file leaves the page where it was, as in a person's browser: the file is the answer.
      return { ...(await pageInfo(tab)), status: null, downloads: downloaded };
    }
    if (snapshot === 'none') return navigated;
    if (snapshot === 'full')
      return { ...navigated, snapshot: await snapshotResult(tab, false, { offset: 0 }, options) };
    if (tab.dialogs.open) return { ...navigated, snapshot: await dialogSnapshot(tab, options) };
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
  async browser_click(host, { ref, button, double, modifiers }, options, _fill, gate) {
    const tab = await host.activeTab();
    await gate?.input(tab, refOf(ref), 'click');
    const watch = await watchSubmit(tab);
    await click(tab, refOf(ref), { button, double, modifiers });
    await settle(tab, options, watch);
    return { clicked: refOf(ref) };
  },
  async browser_type(host, { ref, text, secret, submit }, options, fill, gate) {
    const tab = await host.activeTab();
    // The origin a secret goes to is its frame's; the first one of a session is a class of its own.
    const secretOrigin = secret !== undefined && gate ? originOfRef(tab, refOf(ref)) : null;
    const first = secretOrigin !== null && gate?.gate.firstSecretUse(secretOrigin) === true;
    await gate?.input(tab, refOf(ref), submit ? 'enter' : 'type', first ? ['secret_first_use'] : []);
    if (secret !== undefined) {
      // The gateway resolves the name; a fill for another name is never used for this one.
      if (!fill || fill.name !== secret)
        throw new TabgateError('unknown_secret', `No vault secret named ${secret} reached this browser.`);
      // Before the value is in the page, so not even a request the input event sends can carry it.
      await host.secretFilled?.(fill);
      await fillSecret(tab, refOf(ref), fill);
      if (secretOrigin !== null) gate?.gate.secretUsed(secretOrigin);
    } else await typeInto(tab, refOf(ref), text ?? '');
    if (submit) {
      const watch = await watchSubmit(tab);
      await tab.dialogs.unlessDialog(pressKey(tab, 'Enter', []), undefined);
      await settle(tab, options, watch);
    }
    return { typed_into: refOf(ref), submitted: submit === true, ...(secret ? { secret } : {}) };
  },
  async browser_press(host, { key, modifiers }, options, _fill, gate) {
    const tab = await host.activeTab();
    const combo = parseKeyCombo(key);
    if (!combo) throw new TabgateError('invalid_arguments', `key: ${JSON.stringify(key)} is no key.`);
    await gate?.input(tab, null, combo.key === 'Enter' ? 'enter' : 'type');
    const held: KeyModifier[] = [...(modifiers ?? [])];
    for (const modifier of combo.modifiers) if (!held.includes(modifier)) held.push(modifier);
    const watch = combo.key === 'Enter' ? await watchSubmit(tab) : undefined;
    await tab.dialogs.unlessDialog(pressKey(tab, combo.key, held), undefined);
    if (watch) await settle(tab, options, watch);
    return { pressed: [...held, combo.key].join('+') };
  },
  async browser_hover(host, { ref }) {
    await hover(await host.activeTab(), refOf(ref));
    return { hovered: refOf(ref) };
  },
  async browser_select_option(host, { ref, values }, _options, _fill, gate) {
    const tab = await host.activeTab();
    await gate?.input(tab, refOf(ref), 'type');
    return { selected: await selectOptions(tab, refOf(ref), values) };
  },
  async browser_fill_form(host, { fields }, _options, _fill, gate) {
    const tab = await host.activeTab();
    if (gate) for (const field of fields) await gate.input(tab, refOf(field.ref), 'type');
    const filled = await fillForm(
      tab,
      fields.map((field) => ({ ref: refOf(field.ref), value: field.value })),
    );
    return { filled };
  },
  async browser_drag(host, { from_ref, to_ref }, options, _fill, gate) {
    const tab = await host.activeTab();
    await gate?.input(tab, refOf(from_ref), 'type');
    const kind = await drag(tab, refOf(from_ref), refOf(to_ref));
    await settle(tab, options);
    return { dragged: refOf(from_ref), dropped_on: refOf(to_ref), kind };
  },
  async browser_wait_for(host, args, options) {
    const tab = await host.activeTab();
    const waited = await waitFor(
      tab,
      {
        text: args.text,
        textGone: args.text_gone,
        refGone: args.ref_gone && refOf(args.ref_gone),
        seconds: args.seconds,
      },
      options.commandTimeoutMs - 1000,
    );
    return { ...(await snapshotResult(tab, false, { offset: 0 }, options)), waited_ms: waited };
  },
  async browser_dialog(host, { action, prompt_text }, options, _fill, gate) {
    const tab = await host.activeTab();
    const open = tab.dialogs.open;
    if (gate && open && action === 'accept' && (open.type === 'confirm' || open.type === 'beforeunload')) {
      // The renderer is blocked: the origin is the one our world last knew for the main frame.
      const origin = tab.pageWorlds.originOfFrame(tab.mainFrameId) ?? 'null';
      await gate.action(
        'dialog_accept',
        null,
        origin,
        `accept the ${describeDialog(open)} dialog of ${origin}`,
      );
    }
    const dialog = await tab.dialogs.answer(action === 'accept', prompt_text);
    await settle(tab, options);
    return { handled: describeDialog(dialog), accepted: action === 'accept' };
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
  async browser_forward(host, _args, options) {
    return goInHistory(await host.activeTab(), 1, Math.max(1000, options.commandTimeoutMs - 2000));
  },
  async browser_reload(host, _args, options) {
    return reload(await host.activeTab(), Math.max(1000, options.commandTimeoutMs - 2000));
  },
  async browser_screenshot(host, { full_page, ref, format, quality, annotate }) {
    return screenshot(await host.activeTab(), {
      fullPage: full_page === true,
      ref: ref && refOf(ref),
      format,
      quality,
      annotate,
    });
  },
  async browser_tabs(host) {
    return { tabs: await host.listTabs() };
  },
  async browser_tab_activate(host, { tab_id }) {
    const tab = await host.activateTab(tab_id);
    return { activated: tab_id, ...(await pageInfo(tab)) };
  },
  async browser_tab_new(host, { url }, options) {
    if (!url) {
      const { id, tab } = await host.newTab();
      return { tab_id: id, ...(await pageInfo(tab)) };
    }
    // A call that fails changes nothing: an address that can never open opens no tab, and a tab whose
    // page could not be opened is closed again, the tab active before active again.
    checkUrl(url, options, true);
    const before = (await host.listTabs()).find((open) => open.active)?.id;
    const { id, tab } = await host.newTab();
    try {
      await navigate(tab, url, options, Math.max(1000, options.commandTimeoutMs - 2000));
    } catch (error) {
      // A URL that is a file downloads from the new tab, which stays blank: the file is the answer.
      const downloaded = await downloadedInstead(host, error, options);
      if (downloaded) return { tab_id: id, ...(await pageInfo(tab)), downloads: downloaded };
      await host.closeTab(id).catch(() => undefined);
      if (before !== undefined) await host.activateTab(before).catch(() => undefined);
      throw error;
    }
    return { tab_id: id, ...(await pageInfo(tab)) };
  },
  async browser_tab_close(host, { tab_id }) {
    return host.closeTab(tab_id);
  },
  async browser_upload(host, { ref, paths }, _options, _fill, gate) {
    const tab = await host.activeTab();
    if (gate) {
      const origin = originOfRef(tab, refOf(ref));
      await gate.input(tab, refOf(ref), 'type');
      await gate.action(
        'upload',
        refOf(ref),
        origin,
        `upload ${paths.length} file(s) into ${refOf(ref)} on ${origin}`,
      );
    }
    return upload(tab, refOf(ref), paths);
  },
  async browser_downloads(host, _args, options) {
    const ledger = host.downloads;
    if (!ledger) {
      throw new TabgateError(
        'unsupported_on_backend',
        "This session's browser keeps no downloads: it is not on the gateway's machine (a provider's), so tabgate cannot read its disk.",
      );
    }
    await ledger.settle(Math.min(10_000, options.commandTimeoutMs / 2), DOWNLOAD_GRACE_MS);
    ledger.drain();
    return { downloads: ledger.list() };
  },
  async browser_console(host, { clear }) {
    const tab = await host.activeTab();
    const result = { messages: tab.console.messages, errors: tab.console.errors, cleared: clear === true };
    if (clear) tab.console.clear();
    return result;
  },
  browser_approval_status() {
    // Answered by the gateway, which keeps the approvals; no browser knows of them.
    return Promise.reject(
      new TabgateError('unsupported_on_backend', 'browser_approval_status is answered by the gateway.'),
    );
  },
  browser_request_takeover() {
    // A pause of the session that the gateway holds while the person acts; no browser knows of it.
    return Promise.reject(
      new TabgateError('unsupported_on_backend', 'browser_request_takeover is answered by the gateway.'),
    );
  },
  async browser_get_images(host) {
    const tab = await host.activeTab();
    const contextId = await tab.pageWorlds.contextFor(tab.mainFrameId);
    return {
      images: await tab.pageWorlds.run<ToolResults['browser_get_images']['images']>(contextId, 'images'),
    };
  },
};

/** The tools that give the page input: a request with a body their page sends is held for approval. */
const INPUTS: ReadonlySet<ToolName> = new Set([...PAGE_INPUT_TOOLS, 'browser_dialog', 'browser_upload']);

/**
 * What may run while a dialog blocks the active tab: reading it, answering it, and leaving it. Not a
 * screenshot: the blocked renderer draws no frame until the dialog is answered.
 */
const WHILE_DIALOG: ReadonlySet<ToolName> = new Set([
  'browser_dialog',
  'browser_snapshot',
  'browser_tabs',
  'browser_tab_activate',
  'browser_tab_new',
  'browser_tab_close',
  'browser_console',
]);

/**
 * A call whose page was replaced under it (the page navigated by itself: a timer, a redirect, a
 * reload), past what a ref check catches. Never "do it again": an input may have acted first.
 */
function replacedDuring(tool: ToolName): TabgateError {
  return new TabgateError(
    'stale_ref',
    `The page navigated while ${tool} ran, so it could not finish. Take a browser_snapshot to see the new page before acting again.`,
  );
}

/**
 * A page still between two documents once its session stopped sending the refused command again
 * (CdpSession.send). What the call did before is done (a click that navigated): the agent is sent to
 * look, never told to do it again.
 */
function stillBetweenDocuments(tool: ToolName): TabgateError {
  return new TabgateError(
    'navigation_timeout',
    `${tool} could not finish: the page was still changing documents after ${BETWEEN_DOCUMENTS_MS / 1000} s. Take a browser_snapshot to see where it is before acting again.`,
  );
}

/**
 * Runs one validated tool call. A dialog open in the active tab refuses what would wait on the blocked
 * page (`dialog_open`); notices of what happened meanwhile, and a dialog still open, ride along on
 * object results.
 */
export async function runTool<N extends ToolName>(
  host: TabHost,
  tool: N,
  args: ToolInput<N>,
  options: EngineOptions,
  /** The vault secret of a `browser_type {secret}`, for that one fill. */
  fill?: SecretFill,
  /** The session's approvals: consequential inputs wait for them (docs/safety.md "Approvals"). */
  approvals?: ActionGate,
): Promise<ToolResults[N] & { notices?: string[]; dialog?: string; downloads?: DownloadInfo[] }> {
  if (!WHILE_DIALOG.has(tool)) {
    const open = host.currentTab()?.dialogs.open;
    if (open) {
      throw new TabgateError(
        'dialog_open',
        `A dialog is open: ${describeDialog(open)}. Answer it with browser_dialog (accept or dismiss) before ${tool}.`,
      );
    }
  }
  const handler = HANDLERS[tool] as Handler<N>;
  const gate = approvals && approvals.policy.classes.length > 0 ? new CallGate(approvals) : undefined;
  const unwatch =
    gate?.watchesRequests && INPUTS.has(tool)
      ? host.watchRequests?.((request) => gate.hold(request))
      : undefined;
  let result: ToolResults[N];
  // A tool that only reads runs once more on the page that replaced the one it was reading.
  let tries = getTool(tool)?.annotations.readOnlyHint === true ? 2 : 1;
  try {
    for (;;) {
      try {
        result = await handler(host, args, options, fill, gate);
        break;
      } catch (error) {
        if (!isCdpFailure(error, 'stale_context')) throw error;
        if (--tries === 0) throw replacedDuring(tool);
      }
    }
    await gate?.settle();
  } catch (error) {
    throw isCdpFailure(error, 'between_documents') ? stillBetweenDocuments(tool) : error;
  } finally {
    unwatch?.();
  }
  const notices = await host.drainNotices();
  const extra: { notices?: string[]; dialog?: string; downloads?: DownloadInfo[] } = {};
  if (notices.length > 0) extra.notices = notices;
  if (host.downloads && tool !== 'browser_downloads') {
    // A download the call started is reported with it once it is written (or stopped).
    await host.downloads.settle(Math.min(10_000, options.commandTimeoutMs / 2));
    const finished = host.downloads.drain();
    if (finished.length > 0) extra.downloads = finished;
  }
  const open = host.currentTab()?.dialogs.open;
  if (open) extra.dialog = describeDialog(open);
  return Object.keys(extra).length > 0 ? { ...result, ...extra } : result;
}
