/**
 * A refused Camofox call as the code every other backend gives for the same case, so an agent learns
 * one meaning per code. Camofox answers with an HTTP status, Playwright's own words in `error`, and (from
 * the version that classifies its errors) a `code`: `stale_refs`, `element_not_actionable`,
 * `tab_timeout`, `navigation_race`, … Older servers send only the words (`Unknown ref: e5`), and a
 * Playwright wait that ran out (a disabled button) carries no code at all, so both are read: the code
 * first where it decides alone, then the words.
 */
import { TabgateError } from '../../../protocol/index.js';
import type { CamofoxReply } from './camofox-client.js';

export interface CamofoxFailure {
  error: TabgateError;
  /** Camofox closed the tab (timed out, crashed, destroyed): the next call needs a fresh one. */
  tabGone: boolean;
}

/** Playwright's words for an element that cannot take the action as it stands. */
const NOT_INTERACTABLE =
  /not visible|not enabled|not editable|not fillable|not an <input>|outside of the viewport|no bounding box|Malformed value/i;
const DETACHED = /missing or detached|not attached/i;
const NAVIGATED =
  /Execution context was destroyed|Cannot find context|Frame was detached|Navigation interrupted/i;
const DEAD_CONTEXT =
  /Target page, context or browser has been closed|browser has been closed|Context closed/i;
const TIMED_OUT = /timed out after|Timeout \d+ms exceeded/i;

/**
 * `<div id="overlay" class="banner wide">…</div> intercepts pointer events` (Playwright) → `div#overlay.banner`,
 * the way the engine names a cover.
 */
export function coverOf(message: string): string | undefined {
  const match = /<([a-z][\w-]*)([^>]*)>[^\n]*?intercepts pointer events/i.exec(message);
  if (!match) return undefined;
  const [, tag = '', attributes = ''] = match;
  const id = /\bid="([^"]+)"/.exec(attributes)?.[1];
  const cls = /\bclass="([^"]+)"/.exec(attributes)?.[1]?.trim().split(/\s+/)[0];
  return `${tag.toLowerCase()}${id ? `#${id}` : ''}${cls ? `.${cls}` : ''}`;
}

export function camofoxFailure(
  reply: CamofoxReply,
  action: string,
  ref: string | undefined,
  /** The server's whole message, secrets already taken out: Playwright's call log can be long. */
  words: string,
): CamofoxFailure {
  const code = typeof reply.body.code === 'string' ? reply.body.code : '';
  const said = `(Camofox: ${words.split('\n')[0]?.slice(0, 200) ?? ''})`;
  const target = ref ?? 'the element';
  const fail = (error: TabgateError, tabGone = false): CamofoxFailure => ({ error, tabGone });

  if (code === 'tab_timeout')
    return fail(
      new TabgateError(
        'command_timeout',
        `Camofox did not finish ${action} in time and closed the tab; navigate again ${said}.`,
      ),
      true,
    );
  if (code === 'page_crashed' || /Page crashed|Target crashed/i.test(words))
    return fail(
      new TabgateError(
        'browser_crashed',
        `The tab crashed in Camofox; navigate again for a fresh one ${said}.`,
      ),
      true,
    );
  if (code === 'tab_destroyed')
    return fail(new TabgateError('no_page', `Camofox closed the tab; navigate again ${said}.`), true);
  if (code === 'session_expired' || DEAD_CONTEXT.test(words))
    return fail(
      new TabgateError(
        'browser_crashed',
        `Camofox's browser closed this session's page; navigate again ${said}.`,
      ),
      true,
    );
  if (code === 'stale_refs' || /Unknown ref/i.test(words))
    return fail(
      new TabgateError(
        'stale_ref',
        `${target} is not a ref of the current page; take a new browser_snapshot ${said}.`,
      ),
    );
  if (/intercepts pointer events/i.test(words)) {
    const cover = coverOf(words) ?? 'another element';
    return fail(
      new TabgateError(
        'element_covered',
        `${target} is covered by ${cover}; that element would receive the click ${said}.`,
        { covered_by: cover },
      ),
    );
  }
  if (DETACHED.test(words) || code === 'navigation_race' || NAVIGATED.test(words))
    return fail(
      new TabgateError(
        'stale_ref',
        `${target} belongs to a page or element that no longer exists; take a new browser_snapshot ${said}.`,
      ),
    );
  if (code === 'element_not_actionable' || NOT_INTERACTABLE.test(words))
    return fail(new TabgateError('element_not_interactable', `${target} cannot take ${action} ${said}.`));
  if (code === 'tab_unresponsive' || code === 'concurrency_timeout')
    return fail(
      new TabgateError(
        'browser_busy',
        `Camofox is busy with other calls of this session; retry shortly ${said}.`,
        {
          retry_after_seconds: 1,
        },
      ),
    );
  if (TIMED_OUT.test(words))
    return fail(new TabgateError('command_timeout', `Camofox did not finish ${action} in time ${said}.`));
  return fail(new TabgateError('backend_unavailable', `Camofox ${action} failed ${said}.`));
}
