/**
 * A takeover of one session (browser_request_takeover), in its session view: the agent's reason —
 * its words, rendered as text, never as markup — where the person can do the step (the provider's live
 * view, or this page's screenshot), and Done / Decline: the same decision as `tabgate approvals
 * approve|deny ID`, sent with this page's token. While a takeover waits the screenshot is refreshed,
 * since no agent action refreshes it.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { ApprovalRecord } from '../protocol/approvals.js';
import { act, ApiError, getJson } from './api.js';
import { when } from './format.js';

/** How often the panel looks for a takeover, and refreshes the screenshot while one waits. */
const LOOK_EVERY_MS = 1000;

export function TakeoverPanel(props: { sessionId: string; liveUrl?: string; onTick: () => void }) {
  const [takeover, setTakeover] = useState<ApprovalRecord | null>(null);
  const [message, setMessage] = useState('');
  useEffect(() => {
    let live = true;
    const look = () =>
      getJson<{ approvals: ApprovalRecord[] }>('/v1/approvals?status=pending').then(
        (body) => {
          if (!live) return;
          const found = body.approvals.find((a) => a.kind === 'takeover' && a.session_id === props.sessionId);
          setTakeover(found ?? null);
          if (found) props.onTick();
        },
        () => undefined,
      );
    void look();
    const timer = setInterval(() => void look(), LOOK_EVERY_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [props.sessionId]);
  if (!takeover) return message ? html`<p role="status" id="takeover-status">${message}</p>` : null;
  const decide = async (verb: 'approve' | 'deny') => {
    try {
      await act('POST', `/v1/approvals/${encodeURIComponent(takeover.approval_id)}/${verb}`);
      setMessage(verb === 'approve' ? 'Marked done: the agent goes on.' : 'Declined: the agent was told.');
      setTakeover(null);
    } catch (error) {
      setMessage(error instanceof ApiError ? `Not done: ${error.message} (${error.code})` : 'Not done.');
    }
  };
  return html`<aside class="takeover" id="takeover" aria-labelledby="takeover-title">
    <h3 id="takeover-title">Your agent asks you to do this yourself</h3>
    <p class="takeover-reason" id="takeover-reason">${takeover.summary}</p>
    <p>
      ${takeover.frame_origin ? html`On <code>${takeover.frame_origin}</code>. ` : ''}The agent is paused
      until ${when(takeover.expires_at)}; it learns only whether you pressed Done or Decline and where the
      page is afterwards, never what you typed.
      ${
        props.liveUrl
          ? html` Do the step in the
              <a href=${props.liveUrl} target="_blank" rel="noopener noreferrer" id="takeover-live"
                >provider's live view</a
              >.`
          : html` The screenshot below follows the page; a step that needs typing into it is done in the
            browser where it runs (the user's tab, a provider's live view, or a local Chromium with a window),
            else decline it.`
      }
    </p>
    <p>
      <button type="button" onClick=${() => decide('approve')}>Done</button>
      <button type="button" class="danger" onClick=${() => decide('deny')}>Decline</button>
      <span role="status" id="takeover-status">${message}</span>
    </p>
  </aside>`;
}
