/**
 * Approvals: the agent's consequential actions waiting for the owner (a purchase, a post, an upload, …),
 * each with the action in words, where, and Approve / Deny — the same decision as
 * `tabgate approvals approve ID`, sent with this page's token. A takeover (the agent asks the person
 * to do a step themselves) shows the agent's reason as text, a link to its session (screenshot, live
 * view) and Done / Decline. Below, the latest decided ones.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { ApprovalRecord } from '../protocol/approvals.js';
import { act, ApiError, getJson } from './api.js';
import { when } from './format.js';
import { useHeldAfterChange } from './held.js';

const DECIDED_SHOWN = 20;

/** A takeover's status in the person's words: approved and used is "done", denied is "declined". */
const TAKEOVER_STATUS: Readonly<Record<string, string>> = {
  approved: 'done',
  used: 'done',
  denied: 'declined',
  expired: 'timed out or withdrawn',
};
const statusOf = (a: ApprovalRecord) =>
  a.kind === 'takeover' ? (TAKEOVER_STATUS[a.status] ?? a.status) : a.status;

export function ApprovalsView() {
  const [approvals, setApprovals] = useState<ApprovalRecord[] | null>(null);
  const [status, setStatus] = useState('');
  const load = () =>
    getJson<{ approvals: ApprovalRecord[] }>('/v1/approvals').then(
      (body) => setApprovals(body.approvals),
      () => undefined,
    );
  useEffect(() => {
    void load();
    // An approval waits at most safety.approval_timeout_s: a look every second keeps the list current.
    const timer = setInterval(() => void load(), 1000);
    return () => clearInterval(timer);
  }, []);
  const decide = async (approval: ApprovalRecord, verb: 'approve' | 'deny') => {
    const what = verb === 'approve' ? 'Approve' : 'Deny';
    try {
      await act('POST', `/v1/approvals/${encodeURIComponent(approval.approval_id)}/${verb}`);
      setStatus(`${what} ${approval.approval_id}: done.`);
    } catch (error) {
      setStatus(error instanceof ApiError ? `${what}: ${error.message} (${error.code})` : `${what}: failed.`);
    }
    void load();
  };
  // Oldest first: one that arrives goes below the others, never above the one the owner is reading.
  const pending = (approvals ?? []).filter((a) => a.status === 'pending').reverse();
  const held = useHeldAfterChange(pending.map((a) => a.approval_id).join(' '));
  /** The two answers to `a`, held a moment after the list changed. */
  const buttons = (a: ApprovalRecord, [yes, no]: [string, string]) =>
    html`<button
        type="button"
        aria-disabled=${held.attribute}
        onClick=${held.press(() => decide(a, 'approve'))}
      >
        ${yes}
      </button>
      <button
        type="button"
        class="danger"
        aria-disabled=${held.attribute}
        onClick=${held.press(() => decide(a, 'deny'))}
      >
        ${no}
      </button>`;
  if (!approvals) return html`<p>Loading…</p>`;
  const decided = approvals.filter((a) => a.status !== 'pending').slice(0, DECIDED_SHOWN);
  return html`<section aria-labelledby="approvals-title">
    <h2 id="approvals-title">Approvals</h2>
    <p role="status">${status}</p>
    <h3>Waiting for your decision</h3>
    ${
      pending.length === 0
        ? html`<p>No action is waiting for approval.</p>`
        : html`<ul class="pending" aria-label="Waiting approvals">
            ${pending.map((a) =>
              a.kind === 'takeover'
                ? html`<li key=${a.approval_id} class="takeover">
                    Take over: <strong>${a.summary}</strong> <br />session
                    <a href=${`#/sessions/${encodeURIComponent(a.session_id)}`}
                      ><code>${a.session_id}</code></a
                    >
                    ${a.frame_origin ? html`, on <code>${a.frame_origin}</code>` : ''}; the agent waits until
                    ${when(a.expires_at)}
                    <br />
                    ${buttons(a, ['Done', 'Decline'])}
                  </li>`
                : html`<li key=${a.approval_id}>
                    <strong>${a.summary}</strong>
                    <br />session <code>${a.session_id}</code>, ${a.tool}, ${a.classes.join(', ')}; until
                    ${when(a.expires_at)}
                    <br />
                    ${buttons(a, ['Approve', 'Deny'])}
                  </li>`,
            )}
          </ul>`
    }
    <h3>Decided</h3>
    <table class="list">
      <thead>
        <tr>
          <th scope="col">Action</th>
          <th scope="col">Session</th>
          <th scope="col">Status</th>
          <th scope="col">Decided</th>
          <th scope="col">Through</th>
        </tr>
      </thead>
      <tbody>
        ${decided.map(
          (a) =>
            html`<tr key=${a.approval_id}>
              <td>${a.kind === 'takeover' ? `Take over: ${a.summary}` : a.summary}</td>
              <td><code>${a.session_id}</code></td>
              <td>${statusOf(a)}</td>
              <td>${a.decided_at ? when(a.decided_at) : ''}</td>
              <td>${a.channel ?? ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}
