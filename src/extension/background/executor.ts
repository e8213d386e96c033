/**
 * Runs the gateway's commands on the shared tabs, one at a time in the order they came, enforcing the
 * allowlist a second time (the gateway already does): anything not on it is `unsupported_action`.
 * Exactly one result per command_id; a duplicate id while the original runs gets `duplicate_command`
 * and leaves the original alone; a cancel (or the deadline) settles the command at once as
 * `cancelled`, whatever the action is doing, and the next command starts.
 */
import { runTool, type ActionGate, type EngineOptions } from '../../engine/index.js';
import {
  DEFAULT_COMMAND_TIMEOUT_SECONDS,
  FRAME_METHODS,
  isControllerCapability,
  isTabgateError,
  parseToolArguments,
  refusalRule,
  type SiteRefusalRule,
  type CommandParams,
  type Frame,
  type ToolInput,
  type ToolName,
  PAGE_INPUT_TOOLS,
} from '../../protocol/index.js';
import { originOfRef } from '../../engine/action-gate.js';
import { CommandError } from './command-error.js';
import type { SharedTabs } from './shared-tabs.js';
import type { SiteGuard } from './site-guard.js';
import type { TabApprovals } from './tab-approvals.js';
import { readLocal } from './durable-state.js';
import type { DownloadHolds } from './download-holds.js';
import type { TabDownloads } from './tab-downloads.js';
import { uploadFilesOf, uploadToUserTab } from './upload-files.js';

/** The reference protocol's cap on a screenshot data URL. */
export const MAX_SCREENSHOT_DATA_URL_CHARS = 1_500_000;
/** The snapshot budget of the extension's engine (the gateway's default `snapshot_max_chars`). */
export const SNAPSHOT_MAX_CHARS = 15_000;
const REMEMBERED_IDS = 1024;
/**
 * The actions that may need approval, and so read the session's approval state first (which also
 * refuses them while the person has the session stopped); the gateway refuses every call of a stopped
 * session before it gets here, so the others do not pay for the read.
 */
const GATED: ReadonlySet<string> = new Set([...PAGE_INPUT_TOOLS, 'browser_dialog', 'browser_upload']);

interface ErrorPayload {
  code: string;
  message: string;
  /** Which site rule refused (protocol v1 leaves it optional: the gateway reads refusals without it). */
  rule?: SiteRefusalRule;
}

interface Running {
  settle(outcome: { ok: true; result: unknown } | { ok: false; error: ErrorPayload }): void;
  /** Settles without a reply. */
  silence(): void;
  abort: AbortController;
}

export class CommandExecutor {
  private readonly running = new Map<string, Running>();
  /** Ids that already got their one result, so a replay is never executed again. */
  private readonly finished = new Set<string>();
  /**
   * Settles once the last command taken is settled: the next one starts then. A session's commands run
   * one at a time, in the order they came, as the gateway runs a session's calls on its own browsers;
   * an agent's calls sent together (a navigation and a scroll) would otherwise race on the page, the
   * scroll reading a document the navigation had just replaced.
   */
  private lastSettled: Promise<void> = Promise.resolve();

  constructor(
    private readonly tabs: SharedTabs,
    private readonly send: (frame: Frame) => void,
    /** The session's site policy, checked before every action (site-guard.ts). */
    private readonly sites: SiteGuard,
    /** The session's approvals: consequential inputs wait for the person (tab-approvals.ts). */
    private readonly approvals?: TabApprovals,
    private readonly snapshotMaxChars = SNAPSHOT_MAX_CHARS,
    /** The shared tabs' downloads, kept on the gateway (tab-downloads.ts), and the net under them. */
    private readonly downloads?: { taken: TabDownloads; holds: DownloadHolds },
  ) {}

  get pending(): number {
    return this.running.size;
  }

  handleCommand(params: CommandParams): void {
    const id = params.command_id;
    if (this.running.has(id)) {
      this.reply(id, {
        ok: false,
        error: { code: 'duplicate_command', message: `command ${id} is already running` },
      });
      return;
    }
    if (this.finished.has(id)) return;
    const abort = new AbortController();
    let settled = false;
    let markSettled = (): void => undefined;
    const settledNow = new Promise<void>((resolve) => (markSettled = resolve));
    const running: Running = {
      abort,
      settle: (outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        markSettled();
        this.running.delete(id);
        this.remember(id);
        this.reply(id, outcome);
      },
      silence: () => {
        settled = true;
        clearTimeout(timer);
        markSettled();
      },
    };
    const deadline = params.deadline_at ?? Date.now() + DEFAULT_COMMAND_TIMEOUT_SECONDS * 1000;
    const timer = setTimeout(
      () => {
        abort.abort();
        running.settle({
          ok: false,
          error: { code: 'deadline_exceeded', message: 'the command ran past its deadline' },
        });
      },
      Math.max(0, deadline - Date.now()),
    );
    this.running.set(id, running);
    // Its deadline runs while it waits its turn; cancelled or past it meanwhile, it never starts.
    const turn = this.lastSettled;
    this.lastSettled = settledNow;
    void turn.then(() => {
      if (settled) return;
      this.execute(params, deadline, abort.signal).then(
        (result) => running.settle({ ok: true, result }),
        (error: unknown) => running.settle({ ok: false, error: toPayload(error) }),
      );
    });
  }

  /** A cancel from the gateway: settle at once; the action's own result, if it comes, is dropped. */
  handleCancel(commandId: string): void {
    const running = this.running.get(commandId);
    if (!running) return;
    running.abort.abort();
    running.settle({ ok: false, error: { code: 'cancelled', message: 'the command was cancelled' } });
  }

  /**
   * The share stopped after a detach: everything still running is aborted, silently, because the
   * gateway has already failed those commands as cancelled and would ignore a late result anyway.
   */
  abortAll(): void {
    for (const [id, running] of [...this.running]) {
      this.running.delete(id);
      this.remember(id);
      running.abort.abort();
      running.silence();
    }
  }

  /** Stop in the popup: every command running now ends as cancelled, at once. */
  cancelAll(): void {
    for (const id of [...this.running.keys()]) this.handleCancel(id);
  }

  private async execute(params: CommandParams, deadline: number, signal: AbortSignal): Promise<unknown> {
    const action = params.action;
    if (!isControllerCapability(action)) {
      throw new CommandError(
        'unsupported_action',
        `${action.slice(0, 100)} is not an action this extension runs`,
      );
    }
    if (action === 'controller.noop') return { ...params.arguments };
    if (Date.now() > deadline)
      throw new CommandError('deadline_expired', 'the command arrived after its deadline');
    // An upload carries the files the gateway read; the approval and the checks see only the call.
    const upload = action === 'browser_upload' ? uploadFilesOf(params.arguments) : null;
    const raw = upload?.rest ?? params.arguments;
    const args = parseToolArguments(action as ToolName, raw);
    await this.refuseWhileTakenOver();
    // A vault secret is taken for the one fill it came with and kept nowhere; the engine checks the
    // frame's origin and the field's kind again here, in the user's browser, before it goes in.
    if (params.secret && action !== 'browser_type')
      throw new CommandError('unsupported_action', 'only browser_type may carry a vault secret');
    // In the user's browser, on its own: the gateway judged the navigation too, but either alone holds.
    await this.sites.before(action, args, deadline, (ref) => this.frameOriginOf(ref));
    const share = this.approvals && GATED.has(action) ? await readLocal('share') : null;
    const gate = share
      ? await this.approvals?.gateFor(share.session_id, action, raw, signal, () => this.tabs.currentTab())
      : undefined;
    if (signal.aborted) throw new CommandError('cancelled', 'the command was cancelled');
    const shared = share ?? (this.downloads ? await readLocal('share') : null);
    if (shared) await this.downloads?.taken.ready(shared.session_id);
    const taken = this.downloads?.taken.begin(action);
    const held = this.downloads?.holds.begin();
    let result: unknown;
    let refusal = null;
    try {
      if (upload) {
        const { ref } = args as ToolInput<'browser_upload'>;
        result = await uploadToUserTab(this.tabs, ref, upload.files, gate);
      } else {
        // The engine reports the downloads the action started (the shared tabs' ledger, tab-downloads.ts).
        result = await this.run(action, args, deadline, params.secret, gate);
      }
    } finally {
      held?.();
      refusal = taken?.end() ?? null;
      await this.sites.done(action);
    }
    // A download the action started that the person refused, or that tabgate cannot keep, is said so.
    if (refusal) throw refusal;
    return result;
  }

  /**
   * While the person does a step on the tab (browser_request_takeover), no command touches or reads
   * it: the gateway refuses them first, and this holds even if one got through.
   */
  private async refuseWhileTakenOver(): Promise<void> {
    if (!this.approvals?.anyPaused()) return;
    const share = await readLocal('share');
    const takeover = share ? await this.approvals.pausedBy(share.session_id) : null;
    if (takeover)
      throw new CommandError(
        'takeover_pending',
        `the person is doing a step on this tab (takeover ${takeover}); nothing was run`,
      );
  }

  /** The origin of the frame a ref of the current tab points into; none for a ref it does not know. */
  private frameOriginOf(ref: string): string | undefined {
    const tab = this.tabs.currentTab();
    if (!tab) return undefined;
    try {
      return originOfRef(tab, ref);
    } catch {
      // Not a live ref of this tab: the engine refuses it as stale_ref before touching anything.
      return undefined;
    }
  }

  private async run(
    action: ToolName,
    args: ReturnType<typeof parseToolArguments>,
    deadline: number,
    secret: CommandParams['secret'],
    gate: ActionGate | undefined,
  ): Promise<unknown> {
    const options: EngineOptions = {
      snapshotMaxChars: this.snapshotMaxChars,
      commandTimeoutMs: Math.max(1000, deadline - Date.now()),
      // The user's own browser: it may open what the user can open; the gateway refused metadata URLs.
      remote: false,
      allowPrivateUrls: true,
    };
    const result = await runTool(this.tabs, action, args, options, secret, gate);
    await this.sites.after(action);
    if (action === 'browser_screenshot') {
      const data = (result as { data?: string }).data ?? '';
      if ('data:image/png;base64,'.length + data.length > MAX_SCREENSHOT_DATA_URL_CHARS) {
        throw new CommandError(
          'screenshot_too_large',
          'The screenshot is over 1.5 million characters as a data URL; take a viewport screenshot.',
        );
      }
    }
    return result;
  }

  private reply(
    commandId: string,
    outcome: { ok: true; result: unknown } | { ok: false; error: ErrorPayload },
  ): void {
    this.send({
      method: FRAME_METHODS.result,
      params: outcome.ok
        ? { command_id: commandId, ok: true, result: outcome.result }
        : { command_id: commandId, ok: false, error: outcome.error },
    });
  }

  private remember(id: string): void {
    this.finished.add(id);
    if (this.finished.size > REMEMBERED_IDS)
      this.finished.delete(this.finished.values().next().value as string);
  }
}

function toPayload(error: unknown): ErrorPayload {
  if (isTabgateError(error)) {
    const rule = refusalRule(error.code, error.details?.rule);
    return rule
      ? { code: error.code, message: error.message, rule }
      : { code: error.code, message: error.message };
  }
  if (error instanceof CommandError) return { code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'command_error', message: message.slice(0, 500) };
}
