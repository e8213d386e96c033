/** Sessions: every session of the gateway with who serves it, its status and its last action. */
import { html } from 'htm/preact';
import type { SessionSummary } from '../gateway/activity/session-summary.js';
import { duration, when } from './format.js';

export function SessionsView({ sessions }: { sessions: SessionSummary[] }) {
  if (sessions.length === 0)
    return html`<p>
      No sessions yet. An agent creates one with <code>POST /v1/sessions</code> or over MCP.
    </p>`;
  return html`<table class="list">
    <caption>
      Sessions
    </caption>
    <thead>
      <tr>
        <th scope="col">Session</th>
        <th scope="col">Created</th>
        <th scope="col">Browser</th>
        <th scope="col">Status</th>
        <th scope="col">Last action</th>
      </tr>
    </thead>
    <tbody>
      ${sessions.map(
        (s) =>
          html`<tr key=${s.session_id} data-session=${s.session_id}>
            <td>
              <a href=${`#/sessions/${encodeURIComponent(s.session_id)}`}>${s.title ?? s.session_id}</a>
            </td>
            <td>${when(s.created_at)}</td>
            <td>${s.backend.label}</td>
            <td><span class=${`status status-${s.status.replace(/ /g, '-')}`}>${s.status}</span></td>
            <td>
              ${
                s.last_action
                  ? html`${s.last_action.tool} · ${s.last_action.outcome ?? 'running'} ·
                    ${duration(s.last_action.duration_ms)} · ${when(s.last_action.started_at)}`
                  : '—'
              }
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
