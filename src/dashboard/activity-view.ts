/** Activity: the audit log live, newest first, filtered by session, tool, outcome and principal; export. */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { AuditEntry } from '../gateway/audit/audit-store.js';
import type { ToolName } from '../protocol/index.js';
import { request } from './api.js';
import { argumentsText, duration, when } from './format.js';

export interface Filter {
  session: string;
  tool: string;
  outcome: string;
  principal: string;
}

export const NO_FILTER: Filter = { session: '', tool: '', outcome: '', principal: '' };

export function matches(entry: AuditEntry, f: Filter): boolean {
  return (
    (!f.session || entry.session_id === f.session) &&
    (!f.tool || entry.action === f.tool) &&
    (!f.outcome || (f.outcome === 'error' ? entry.outcome !== 'ok' : entry.outcome === f.outcome)) &&
    (!f.principal || entry.principal_id === f.principal)
  );
}

const query = (f: Filter) => new URLSearchParams(Object.entries(f).filter(([, v]) => v !== '')).toString();

export function ActivityView(props: { entries: AuditEntry[]; tools: ToolName[] }) {
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const [status, setStatus] = useState('');
  const set = (name: keyof Filter) => (event: Event) =>
    setFilter({ ...filter, [name]: (event.target as HTMLInputElement).value.trim() });
  const shown = props.entries.filter((e) => matches(e, filter));
  const exportLines = async () => {
    try {
      const blob = await (await request('GET', `/v1/dashboard/activity/export?${query(filter)}`)).blob();
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = 'tabgate-activity.jsonl';
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      setStatus('Exported.');
    } catch {
      setStatus('Export failed.');
    }
  };
  return html`<section aria-labelledby="activity-title">
    <h2 id="activity-title">Activity</h2>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Session <input value=${filter.session} onInput=${set('session')} /></label>
      <label
        >Tool
        <select value=${filter.tool} onChange=${set('tool')}>
          <option value="">any</option>
          ${[...props.tools, 'session.stop', 'session.resume', 'session.release'].map((t) => html`<option value=${t}>${t}</option>`)}
        </select></label
      >
      <label
        >Outcome
        <select value=${filter.outcome} onChange=${set('outcome')}>
          <option value="">any</option>
          <option value="ok">ok</option>
          <option value="error">any error</option>
        </select></label
      >
      <label>Principal <input value=${filter.principal} onInput=${set('principal')} /></label>
      <button type="button" onClick=${exportLines}>Export JSON lines</button>
      <span role="status">${status}</span>
    </form>
    <table class="list" id="activity">
      <caption>
        Audit log, newest first (${shown.length} shown)
      </caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Session</th>
          <th scope="col">Principal</th>
          <th scope="col">Action</th>
          <th scope="col">Arguments</th>
          <th scope="col">Outcome</th>
          <th scope="col">Took</th>
        </tr>
      </thead>
      <tbody>
        ${shown.map(
          (e) =>
            html`<tr key=${e.id}>
              <td>${when(e.at)}</td>
              <td>${e.session_id}</td>
              <td>${e.principal_id}</td>
              <td>${e.action}</td>
              <td><code>${argumentsText(e.arguments)}</code></td>
              <td>${e.outcome}</td>
              <td>${duration(e.duration_ms)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}
