/**
 * Approvals on the user's tab, the extension's half (docs/safety.md "On the user's tab"). The gateway
 * cannot read the user's page, so the extension judges the element itself: it hands the engine an
 * ActionGate, the engine reads and classifies the element before dispatching anything (and holds the
 * requests with a body the input sets off, through SharedTabs.watchRequests), and the gate asks.
 *
 * Asking = opening the approval in the gateway's book (the source of truth; the dashboard sees it too),
 * showing it in browser chrome the page cannot reach (a notification that opens the popup, the badge,
 * the popup's list), and claiming it: the gateway answers once it is decided and marks an approved one
 * used. The decision key the gateway gives for it stays in this worker; the popup's Approve sends only
 * the approval's id, and only a message from the popup's own page counts (`fromPopup`).
 *
 * A takeover (browser_request_takeover) is the gateway's pause, which protocol v1 does not carry: the
 * worker learns of it by reading the shared session's approvals (every WATCH_EVERY_MS while a tab is
 * shared, and whenever the popup looks), takes its decision key once, tells the person, and while it
 * is pending runs no command on the tab: the person is using it.
 */
import { bindingOf } from '../../engine/actions.js';
import type { ActionGate } from '../../engine/index.js';
import { pageElementBox } from '../../engine/screenshot-overlays.js';
import type { Tab } from '../../engine/tab.js';
import { ACTION_CLASSES, TabgateError, type ActionClass, type ApprovalAsk } from '../../protocol/index.js';
import { chrome, type MessageSender } from '../chrome-api.js';
import { CommandError } from './command-error.js';
import { readLocal } from './durable-state.js';
import {
  claimApproval,
  decideApproval,
  fetchSessionApprovals,
  openApproval,
  takeTakeover,
  withdrawApproval,
  type SessionApprovals,
} from './gateway-api.js';

/** Around the element, so the person sees what it sits in. */
const CROP_MARGIN = 40;
const CROP_MAX = { width: 640, height: 360 };
const MAX_CROP_CHARS = 300_000;
/** The approval is not held up for its picture. */
const CROP_WITHIN_MS = 1_500;

interface Waiting {
  sessionId: string;
  key: string;
  /** A takeover the gateway opened, not an action this worker holds. */
  takeover?: boolean;
  /** Left pending for an agent that did not wait (wait:false): the person may still decide it here. */
  left?: boolean;
}

/** How often the worker looks for a takeover while a tab is shared. */
const WATCH_EVERY_MS = 1_500;
/** The takeovers' decision keys, kept across the worker's restarts (session storage: not the page's). */
const TAKEOVER_KEYS = 'takeover_keys';
type KeptKeys = Record<string, { sessionId: string; key: string }>;

async function pairing(): Promise<{ base: string; token: string }> {
  const [stored, base] = await Promise.all([readLocal('pairing'), readLocal('gateway_url')]);
  if (!stored) throw new CommandError('approval_unavailable', 'This browser is not paired any more.');
  return { base, token: stored.token };
}

/** A JPEG of the element (its frame's viewport when it has no box of its own); none if it fails. */
async function cropOf(tab: Tab | null, ref: string | null): Promise<string | undefined> {
  // A page blocked on a dialog paints nothing: a capture would wait for as long as the dialog stays.
  if (!tab || tab.dialogs.open) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), CROP_WITHIN_MS);
  });
  try {
    return await Promise.race([capture(tab, ref), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function capture(tab: Tab, ref: string | null): Promise<string | undefined> {
  try {
    let clip: { x: number; y: number; width: number; height: number; scale: number } | undefined;
    if (ref !== null) {
      const binding = bindingOf(tab, ref);
      const box =
        binding.worlds === tab.pageWorlds
          ? await binding.worlds.call(binding.contextId, pageElementBox, binding.localId)
          : null;
      if (box && box.width >= 1 && box.height >= 1) {
        const width = Math.min(CROP_MAX.width, box.width + 2 * CROP_MARGIN);
        const height = Math.min(CROP_MAX.height, box.height + 2 * CROP_MARGIN);
        clip = {
          x: Math.max(0, box.x + box.width / 2 - width / 2),
          y: Math.max(0, box.y + box.height / 2 - height / 2),
          width,
          height,
          scale: 1,
        };
      }
    }
    const shot = await tab.page.send<{ data: string }>('Page.captureScreenshot', {
      format: 'jpeg',
      quality: clip ? 70 : 40,
      ...(clip ? { clip } : {}),
    });
    const url = `data:image/jpeg;base64,${shot.data}`;
    return url.length <= MAX_CROP_CHARS ? url : undefined;
  } catch {
    // A crop helps the person; an approval without one still shows the origin and the action in words.
    return undefined;
  }
}

async function tell(
  id: string,
  summary: string,
  waiting: number,
  title = 'tabgate: your agent asks for approval',
): Promise<void> {
  await chrome.action.setBadgeText({ text: waiting > 0 ? String(waiting) : '' }).catch(() => undefined);
  if (waiting > 0) await chrome.action.setBadgeBackgroundColor({ color: '#b3261e' }).catch(() => undefined);
  await chrome.notifications
    ?.create(`tabgate-approval:${id}`, {
      type: 'basic',
      iconUrl: chrome.runtime.getURL('icon.png'),
      title,
      message: summary.slice(0, 300),
      requireInteraction: true,
      priority: 2,
    })
    .catch(() => undefined);
}

/**
 * Only the popup's own page decides: a message from this extension, from its popup document (a page,
 * a content script or another extension's page has another URL). A page cannot open the popup itself:
 * it is not web-accessible, so Chrome refuses a page's navigation to it.
 */
export function fromPopup(sender: MessageSender): boolean {
  if (sender.id !== chrome.runtime.id) return false;
  const popup = chrome.runtime.getURL('popup.html');
  const url = sender.url ?? '';
  if (url !== popup && !url.startsWith(`${popup}?`)) return false;
  return sender.origin === undefined || `${sender.origin}/` === chrome.runtime.getURL('');
}

export class TabApprovals {
  private readonly waiting = new Map<string, Waiting>();
  /** The takeover that pauses each session, as last read from the gateway. */
  private readonly paused = new Map<string, string>();
  private watching: ReturnType<typeof setInterval> | undefined;
  /**
   * Told when the person approved an input of the `download` class (a click on a download link): the
   * download it starts is what they approved, and is not asked for again (tab-downloads.ts).
   */
  onDownloadApproved: ((sessionId: string) => void) | undefined;

  /** Whether this worker waits for that approval, and so can post the person's decision on it. */
  waits(approvalId: string): boolean {
    return this.waiting.has(approvalId);
  }

  /** The session's approvals as the gateway has them (policy, pending, stopped). */
  async read(sessionId: string): Promise<SessionApprovals> {
    const { base, token } = await pairing();
    const state = await fetchSessionApprovals(base, token, sessionId);
    await this.noteTakeovers(base, token, sessionId, state);
    return state;
  }

  /** Looks for takeovers of the shared session while one is shared (`sessionOf` answers which). */
  watch(sessionOf: () => Promise<string | null>): void {
    if (this.watching) return;
    this.watching = setInterval(() => {
      void sessionOf()
        .then((id) => (id ? this.read(id) : undefined))
        .catch(() => undefined);
    }, WATCH_EVERY_MS);
  }

  /** Whether any session is paused, as last read: a check that costs nothing on every command. */
  anyPaused(): boolean {
    return this.paused.size > 0;
  }

  /**
   * The takeover that pauses this session, asked of the gateway again (a pause the person just ended
   * must not refuse the next command); null when none does. Fails closed: unread means still paused.
   */
  async pausedBy(sessionId: string): Promise<string | null> {
    if (!this.paused.has(sessionId)) return null;
    await this.read(sessionId).catch(() => undefined);
    return this.paused.get(sessionId) ?? null;
  }

  /** Records which takeovers pause the session, takes their keys and tells the person once. */
  private async noteTakeovers(
    base: string,
    token: string,
    sessionId: string,
    state: SessionApprovals,
  ): Promise<void> {
    const pending = state.approvals.filter((a) => a.kind === 'takeover');
    if (pending[0]) this.paused.set(sessionId, pending[0].approval_id);
    else this.paused.delete(sessionId);
    const stillPending = (id: string) => state.approvals.some((a) => a.approval_id === id);
    for (const [id, entry] of this.waiting)
      if ((entry.takeover || entry.left) && entry.sessionId === sessionId && !stillPending(id)) {
        this.waiting.delete(id);
        await chrome.notifications?.clear(`tabgate-approval:${id}`).catch(() => undefined);
      }
    if (pending.every((a) => this.waiting.has(a.approval_id))) return this.badge();
    const kept =
      ((await chrome.storage.session.get(TAKEOVER_KEYS))[TAKEOVER_KEYS] as KeptKeys | undefined) ?? {};
    const stillKept: KeptKeys = {};
    for (const takeover of pending) {
      const id = takeover.approval_id;
      let key = kept[id]?.key;
      if (key === undefined) {
        try {
          key = await takeTakeover(base, token, sessionId, id);
        } catch {
          // Taken by another read of this worker a moment ago, or by another browser: not ours to decide.
          continue;
        }
        await tell(id, takeover.summary, this.waiting.size + 1, 'tabgate: your agent asks you to take over');
      }
      stillKept[id] = { sessionId, key };
      if (!this.waiting.has(id)) this.waiting.set(id, { sessionId, key, takeover: true });
    }
    await chrome.storage.session.set({ [TAKEOVER_KEYS]: stillKept });
    await this.badge();
  }

  private async badge(): Promise<void> {
    await chrome.action
      .setBadgeText({ text: this.waiting.size > 0 ? String(this.waiting.size) : '' })
      .catch(() => undefined);
  }

  /**
   * The gate of one command, or none when no class is on. Refuses the command when the session is
   * stopped: Stop holds in the browser too, not only in the gateway.
   */
  async gateFor(
    sessionId: string,
    tool: string,
    withWait: Record<string, unknown>,
    signal: AbortSignal,
    currentTab: () => Tab | null,
  ): Promise<ActionGate | undefined> {
    // An approval is bound to the action, not to how the agent waits for it: the same call again, with
    // or without wait:false, uses the approval the first one left pending.
    const { wait, ...args } = withWait;
    let state: SessionApprovals;
    try {
      state = await this.read(sessionId);
    } catch (error) {
      if (error instanceof CommandError) throw error;
      // Unknown policy: nothing consequential may run unasked, so nothing runs.
      throw new CommandError(
        'approval_unavailable',
        `The extension could not read this session's approval policy, so it does nothing (${String((error as Error).message ?? error).slice(0, 200)}).`,
      );
    }
    if (state.stopped) {
      throw new TabgateError(
        'session_stopped_by_owner',
        'The person stopped this session in the tabgate extension; nothing runs until they resume it.',
      );
    }
    const classes = state.policy.classes.filter((c): c is ActionClass =>
      (ACTION_CLASSES as readonly string[]).includes(c),
    );
    if (classes.length === 0) return undefined;
    let approvedInCall = false;
    const secretKey = `secret_origins:${sessionId}`;
    return {
      policy: { classes, lexicon: state.policy.lexicon, perActionOrigins: state.policy.per_action_origins },
      firstSecretUse: () => true,
      secretUsed: (origin) => {
        void chrome.storage.session.get(secretKey).then(async (stored) => {
          const seen = new Set((stored[secretKey] as string[] | undefined) ?? []);
          seen.add(origin);
          await chrome.storage.session.set({ [secretKey]: [...seen].slice(-200) });
        });
      },
      ask: async (ask) => {
        // One approval lets one call do what it asked for, the requests it sets off included.
        if (approvedInCall) return;
        let classes = ask.classes;
        if (classes.includes('secret_first_use')) {
          // The engine cannot await storage where it asks `firstSecretUse`; it is settled here.
          const stored = await chrome.storage.session.get(secretKey);
          if (((stored[secretKey] as string[] | undefined) ?? []).includes(ask.frameOrigin))
            classes = classes.filter((c) => c !== 'secret_first_use');
        }
        if (classes.length === 0) return;
        await this.ask(sessionId, tool, args, { ...ask, classes }, signal, currentTab(), wait !== false);
        approvedInCall = true;
        if (classes.includes('download')) this.onDownloadApproved?.(sessionId);
      },
    };
  }

  /**
   * A download a shared tab started, held until the person decides (tab-downloads.ts): asked like an
   * action, with no element and no crop. Resolves when approved; rejects as the action would.
   */
  askDownload(
    sessionId: string,
    /** The command that started it (its deadline then waits for the person too), or `download`. */
    tool: string,
    args: Record<string, unknown>,
    ask: ApprovalAsk,
    signal: AbortSignal,
  ): Promise<void> {
    return this.ask(sessionId, tool, args, ask, signal, null, true);
  }

  private async ask(
    sessionId: string,
    tool: string,
    args: Record<string, unknown>,
    ask: ApprovalAsk,
    signal: AbortSignal,
    tab: Tab | null,
    waitForIt: boolean,
  ): Promise<void> {
    const { base, token } = await pairing();
    const crop = await cropOf(tab, ask.ref);
    const opened = await openApproval(base, token, sessionId, {
      tool,
      arguments: args,
      ref: ask.ref,
      frame_origin: ask.frameOrigin,
      classes: ask.classes,
      summary: ask.summary,
      ...(crop ? { crop } : {}),
    });
    const id = opened.approval.approval_id;
    if (!waitForIt && opened.approval.status === 'pending') {
      // Nothing was done: the person decides in the popup meanwhile, and the agent's same call again
      // uses the approval (the gateway hands back the approved one instead of opening another).
      this.waiting.set(id, { sessionId, key: opened.decision_key, left: true });
      await tell(id, ask.summary, this.waiting.size);
      await this.badge();
      throw new TabgateError(
        'approval_required',
        `${ask.summary} waits for the person's approval in the tabgate extension; nothing was done.`,
      );
    }
    this.waiting.set(id, { sessionId, key: opened.decision_key });
    const claim = new AbortController();
    const onAbort = () => claim.abort();
    signal.addEventListener('abort', onAbort);
    if (signal.aborted) claim.abort();
    await tell(id, ask.summary, this.waiting.size);
    let outcome: string;
    try {
      outcome = await claimApproval(base, token, sessionId, id, claim.signal);
    } catch (error) {
      if (!signal.aborted) throw error;
      outcome = 'cancelled';
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.waiting.delete(id);
      await chrome.notifications?.clear(`tabgate-approval:${id}`).catch(() => undefined);
      await chrome.action
        .setBadgeText({ text: this.waiting.size > 0 ? String(this.waiting.size) : '' })
        .catch(() => undefined);
    }
    if (signal.aborted) {
      // The command was cancelled or stopped: whatever the person decides now runs nothing.
      await withdrawApproval(base, token, sessionId, id).catch(() => undefined);
      throw new CommandError('cancelled', 'the command was cancelled while it waited for approval');
    }
    if (outcome === 'approved') return;
    if (outcome === 'denied')
      throw new TabgateError('approval_denied', `The person denied ${ask.summary}; nothing was done.`);
    throw new TabgateError('approval_timeout', `Nobody approved ${ask.summary} in time; nothing was done.`);
  }

  /** The person's Approve or Deny in the popup, posted with the key only this worker holds. */
  async decide(approvalId: string, approve: boolean): Promise<void> {
    const waiting = this.waiting.get(approvalId);
    if (!waiting)
      throw new CommandError('approval_not_found', 'That approval is no longer waiting in this browser.');
    const { base, token } = await pairing();
    await decideApproval(base, token, waiting.sessionId, approvalId, approve, waiting.key);
  }
}
