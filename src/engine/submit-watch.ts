/**
 * Whether an input submitted a form of the main frame, told by the form's own `submit` event, seen
 * from our isolated world (a capture listener the page cannot remove or see). It makes the settle
 * after an input (actions.ts) deterministic where it used to guess: a submission the browser carries
 * out itself is waited for until its navigation commits; one the page took over (`preventDefault`) is
 * waited for until the page navigates or its own requests are done.
 */
import type { PageAgent } from './frame-worlds.js';
import type { Tab } from './tab.js';

/**
 * `none`; `native`: the browser navigates to the form's answer in this frame; `taken`: the page took
 * it over (an app posting it itself, a check before it submits, a `dialog` form, another target).
 */
export type SubmitOutcome = 'none' | 'native' | 'taken';

export interface SubmitWatch {
  /** The main frame's navigations and requested navigations when the watch began (before the input). */
  navigations: number;
  requested: number;
  loadsStarted: number;
  refused: number;
  /** When the watch began. */
  at: number;
  /** What became of a submission since: one round trip to the page, after the input. */
  outcome(): Promise<SubmitOutcome>;
  /**
   * Resolves true once a `ms` timer of the page's own has run, and then every task queued before it
   * (false if the document went away first): a spell timed by the page's clock, not ours.
   */
  pageSpell(ms: number): Promise<boolean>;
}

interface Seen {
  count: number;
  last: { event: Event; navigates: boolean } | null;
}

/** Page side: the listener, installed once per document; answers how many submissions it saw. */
function pageSubmitMark(_agent: PageAgent, _arg: null): number {
  const g = globalThis as unknown as { __tabgateSubmits?: Seen };
  let seen = g.__tabgateSubmits;
  if (!seen) {
    const state: Seen = { count: 0, last: null };
    seen = state;
    g.__tabgateSubmits = state;
    addEventListener(
      'submit',
      (event) => {
        const form = event.target instanceof HTMLFormElement ? event.target : null;
        const submitter = event.submitter;
        const method = (submitter?.getAttribute('formmethod') ?? form?.getAttribute('method') ?? '')
          .trim()
          .toLowerCase();
        const target = (
          submitter?.getAttribute('formtarget') ??
          form?.getAttribute('target') ??
          document.querySelector('base[target]')?.getAttribute('target') ??
          ''
        )
          .trim()
          .toLowerCase();
        const here = ['', '_self', '_top', '_parent'].includes(target);
        state.count++;
        state.last = { event, navigates: form !== null && method !== 'dialog' && here };
      },
      true,
    );
  }
  return seen.count;
}

/** Page side: what became of the submissions since `mark`. Read after the input, when it is final. */
function pageSubmitSince(_agent: PageAgent, mark: number): SubmitOutcome {
  const seen = (globalThis as unknown as { __tabgateSubmits?: Seen }).__tabgateSubmits;
  if (!seen || seen.count === mark || !seen.last) return 'none';
  return seen.last.navigates && !seen.last.event.defaultPrevented ? 'native' : 'taken';
}

/**
 * Page side: a timer, then one more task. Timers run in due order, so a page's own timer set during the
 * input for less than `ms` runs first however starved the renderer; the second hop lets a task that
 * timer queued (a form's `submit()` navigates from a task of its own) run before we answer.
 */
function pageSpell(_agent: PageAgent, ms: number): Promise<boolean> {
  return new Promise((resolve) => setTimeout(() => setTimeout(() => resolve(true), 0), ms));
}

/** Page side: answered from a task posted now, once every task the page queued before it has run. */
function pageTask(_agent: PageAgent, _arg: null): Promise<boolean> {
  return new Promise((resolve) => setTimeout(() => resolve(true), 0));
}

/**
 * Resolves true once the page's turn came: a task posted in the main frame's page now has run, so a
 * navigation the page asked for before it (a form's submission is carried out from a task of its own)
 * has been issued, however long the page held its thread first. False when the document went away.
 */
export async function pageTurn(tab: Tab): Promise<boolean> {
  try {
    const contextId = await tab.pageWorlds.contextFor(tab.mainFrameId);
    return await tab.pageWorlds.call(contextId, pageTask, null);
  } catch {
    return false;
  }
}

/** Begins watching the main frame for a submission, before an input that may submit. */
export async function watchSubmit(tab: Tab): Promise<SubmitWatch> {
  const navigations = tab.navigations;
  const requested = tab.requestedNavigations;
  const counts = { loadsStarted: tab.loadsStarted, refused: tab.refusedNavigations };
  const at = Date.now();
  const none: SubmitWatch = {
    navigations,
    requested,
    ...counts,
    at,
    outcome: () => Promise.resolve('none'),
    pageSpell: () => Promise.resolve(false),
  };
  let contextId: number;
  let mark: number;
  try {
    contextId = await tab.pageWorlds.contextFor(tab.mainFrameId);
    mark = await tab.pageWorlds.call(contextId, pageSubmitMark, null);
  } catch {
    // No world in this document (it is going away): the settle's own signals still hold.
    return none;
  }
  return {
    navigations,
    requested,
    ...counts,
    at,
    outcome: async () => {
      try {
        return await tab.pageWorlds.call(contextId, pageSubmitSince, mark);
      } catch {
        // The document is gone: the input navigated, which the settle waits for anyway.
        return 'none';
      }
    },
    pageSpell: async (ms) => {
      try {
        return await tab.pageWorlds.call(contextId, pageSpell, ms);
      } catch {
        return false;
      }
    },
  };
}

/** A quiet spell this long, with no request begun or ended, and a page that took a submission over is done. */
const TAKEN_OVER_QUIET_MS = 300;

/**
 * After a submission the page took over: until `moved()` (the page asked to navigate, or did), or the
 * page has nothing left that could: its requests since the input are done and a quiet spell timed by the
 * page's own clock (`pageSpell`) passed with none begun or ended. Within `budgetMs`: a page may poll for
 * ever.
 */
export async function settleTakenOver(
  tab: Tab,
  watch: SubmitWatch,
  budgetMs: number,
  moved: () => boolean,
): Promise<void> {
  const until = Date.now() + budgetMs;
  const left = () => until - Date.now();
  while (left() > 0) {
    if (!(await tab.waitUntil(() => moved() || tab.activity.doneSince(watch.at), left()))) return;
    if (moved()) return;
    const changes = tab.activity.changes;
    const spell = await within(watch.pageSpell(TAKEN_OVER_QUIET_MS), left());
    // Events come before the answer they preceded in the page, so a navigation it asked for is counted.
    if (moved() || !spell || tab.activity.changes === changes) return;
  }
}

/** `promise`'s value, or false when `ms` passes first. */
function within(promise: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
