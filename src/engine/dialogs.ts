/**
 * JavaScript dialogs (alert, confirm, prompt, beforeunload) of one tab. With the `ask` policy a dialog
 * stays open until the agent answers it with browser_dialog (or it waits longer than the timeout, and
 * is then dismissed, with a notice); `accept` and `dismiss` answer at once, as tabgate always did.
 * While a dialog is open the page's renderer is blocked: nothing may wait on it (a page command or a
 * screenshot would hang until the dialog closes), so waits race against a dialog opening.
 */
import { TabgateError } from '../protocol/index.js';
import type { JavascriptDialogOpening } from './cdp-types.js';
import type { CdpSession } from './transport.js';

export const DIALOG_POLICIES = ['ask', 'accept', 'dismiss'] as const;
export type DialogPolicy = (typeof DIALOG_POLICIES)[number];

export interface DialogSettings {
  policy: DialogPolicy;
  /** How long an unanswered dialog stays open under `ask` before it is dismissed. */
  timeoutMs: number;
}

export const DEFAULT_DIALOG_SETTINGS: DialogSettings = { policy: 'ask', timeoutMs: 60_000 };

export interface OpenDialog {
  type: JavascriptDialogOpening['type'];
  message: string;
  defaultPrompt: string;
  session: CdpSession;
}

/** `confirm "Delete 3 files?"`: how results and snapshots name an open dialog. */
export function describeDialog(dialog: Pick<OpenDialog, 'type' | 'message'>): string {
  return `${dialog.type} ${JSON.stringify(dialog.message.slice(0, 300))}`;
}

export class TabDialogs {
  open: OpenDialog | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly openedListeners = new Set<() => void>();

  constructor(
    private readonly settings: DialogSettings,
    private readonly notice: (text: string) => void,
    /** Wakes the tab's waits: a dialog opening or closing is an event they may be waiting for. */
    private readonly changed: () => void,
  ) {}

  /** Subscribes to one session's dialogs (the page, or an out-of-process iframe). */
  listen(session: CdpSession): (() => void)[] {
    return [
      session.on<JavascriptDialogOpening & { defaultPrompt?: string }>(
        'Page.javascriptDialogOpening',
        (event) =>
          this.opened({
            type: event.type,
            message: event.message,
            defaultPrompt: event.defaultPrompt ?? '',
            session,
          }),
      ),
      session.on('Page.javascriptDialogClosed', () => {
        if (this.open?.session === session) this.closed();
      }),
    ];
  }

  private opened(dialog: OpenDialog): void {
    const article = /^[aeiou]/.test(dialog.type) ? 'An' : 'A';
    const automatic = (accept: boolean, why: string) => {
      dialog.session.send('Page.handleJavaScriptDialog', { accept }).catch(() => undefined);
      this.notice(
        `${article} ${dialog.type} dialog ${JSON.stringify(dialog.message.slice(0, 300))} was ${accept ? 'accepted' : 'dismissed'} ${why}.`,
      );
    };
    if (this.settings.policy !== 'ask') {
      automatic(this.settings.policy === 'accept', 'automatically');
      return;
    }
    this.open = dialog;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.open !== dialog) return;
      this.closed();
      // Leaving a page must not stall for ever on its beforeunload question.
      automatic(
        dialog.type === 'beforeunload',
        `after ${Math.round(this.settings.timeoutMs / 1000)} s unanswered (browser.dialog_timeout_s)`,
      );
    }, this.settings.timeoutMs);
    for (const listener of [...this.openedListeners]) listener();
    this.changed();
  }

  private closed(): void {
    clearTimeout(this.timer);
    this.open = null;
    this.changed();
  }

  /** Answers the open dialog; `no_dialog` when there is none (it may have closed by itself). */
  async answer(accept: boolean, promptText?: string): Promise<OpenDialog> {
    const dialog = this.open;
    if (!dialog) {
      throw new TabgateError('no_dialog', 'No dialog is open in this tab (it may have closed by itself).');
    }
    this.closed();
    await dialog.session.send('Page.handleJavaScriptDialog', {
      accept,
      ...(promptText !== undefined && dialog.type === 'prompt' ? { promptText } : {}),
    });
    return dialog;
  }

  /** `work`'s result, or `fallback` as soon as a dialog opens (the work then waits on the blocked page). */
  unlessDialog<T, F>(work: Promise<T>, fallback: F): Promise<T | F> {
    if (this.open) {
      work.catch(() => undefined);
      return Promise.resolve(fallback);
    }
    return new Promise((resolve, reject) => {
      const listener = () => {
        this.openedListeners.delete(listener);
        work.catch(() => undefined);
        resolve(fallback);
      };
      this.openedListeners.add(listener);
      work.then(
        (value) => {
          this.openedListeners.delete(listener);
          resolve(value);
        },
        (error: unknown) => {
          this.openedListeners.delete(listener);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.openedListeners.clear();
  }
}
