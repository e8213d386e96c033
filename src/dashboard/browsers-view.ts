/**
 * Browsers: the paired extensions with Revoke, and pairing requests waiting for the owner, with Approve
 * and Deny — the same decision as `tabgate pair approve CODE`, sent with this page's token.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { PairingGrant } from '../gateway/pairing/grant-store.js';
import { act, ApiError, getJson } from './api.js';
import { useHeldAfterChange } from './held.js';
import { when } from './format.js';

/** A paired extension, with the sessions it serves now (`GET /v1/dashboard/browsers`). */
type Grant = PairingGrant & { connected: boolean; sessions: { session_id: string; connected: boolean }[] };

interface Pending {
  pairing_id: string;
  name: string;
  origin: string;
  code: string;
}

export function BrowsersView() {
  const [data, setData] = useState<{ grants: Grant[]; pending: Pending[] } | null>(null);
  const [status, setStatus] = useState('');
  const load = () =>
    getJson<{ grants: Grant[]; pending: Pending[] }>('/v1/dashboard/browsers').then(setData, () => undefined);
  useEffect(() => {
    void load();
    // Pairing requests live two minutes: a look every few seconds keeps the list current.
    const timer = setInterval(() => void load(), 3000);
    return () => clearInterval(timer);
  }, []);
  const run = async (what: string, method: 'POST' | 'DELETE', path: string) => {
    try {
      await act(method, path);
      setStatus(`${what}: done.`);
    } catch (error) {
      setStatus(error instanceof ApiError ? `${what}: ${error.message} (${error.code})` : `${what}: failed.`);
    }
    void load();
  };
  // A pairing request arriving moves the list and the table below it: their buttons wait a moment.
  const held = useHeldAfterChange(
    data ? [...data.pending.map((p) => p.pairing_id), ...data.grants.map((g) => g.grant_id)].join(' ') : '',
  );
  if (!data) return html`<p>Loading…</p>`;
  return html`<section aria-labelledby="browsers-title">
    <h2 id="browsers-title">Browsers</h2>
    <p role="status">${status}</p>
    <h3>Waiting for your approval</h3>
    ${
      data.pending.length === 0
        ? html`<p>No pairing request is waiting.</p>`
        : html`<ul class="pending">
            ${data.pending.map(
              (p) =>
                html`<li key=${p.pairing_id}>
                  <strong>${p.name}</strong> (${p.origin}), code <code>${p.code}</code>
                  — approve only if the extension shows the same code.
                  <button
                    type="button"
                    aria-disabled=${held.attribute}
                    onClick=${held.press(() => run('Approve', 'POST', `/v1/dashboard/pairings/${encodeURIComponent(p.pairing_id)}/approve`))}
                  >
                    Approve
                  </button>
                  <button
                    type="button"
                    aria-disabled=${held.attribute}
                    onClick=${held.press(() => run('Deny', 'POST', `/v1/dashboard/pairings/${encodeURIComponent(p.pairing_id)}/deny`))}
                  >
                    Deny
                  </button>
                </li>`,
            )}
          </ul>`
    }
    <h3>Paired extensions</h3>
    <table class="list">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Origin</th>
          <th scope="col">Paired</th>
          <th scope="col">Last seen</th>
          <th scope="col">State</th>
          <th scope="col">Sessions held</th>
          <th scope="col"></th>
        </tr>
      </thead>
      <tbody>
        ${data.grants.map(
          (g) =>
            html`<tr key=${g.grant_id}>
              <td>${g.name}</td>
              <td>${g.origin}</td>
              <td>${when(g.created_at)}</td>
              <td>${when(g.last_used_at)}</td>
              <td>${g.revoked_at ? 'revoked' : g.connected ? 'connected' : 'not connected'}</td>
              <td>
                ${
                  g.sessions.length === 0
                    ? 'none'
                    : g.sessions.map(
                        (s, i) =>
                          html`${i > 0 ? ', ' : ''}<a href=${`#/sessions/${encodeURIComponent(s.session_id)}`}
                              >${s.session_id}</a
                            >${s.connected ? '' : ' (not connected)'}`,
                      )
                }
              </td>
              <td>
                ${g.revoked_at ? '' : html`<button type="button" class="danger" aria-disabled=${held.attribute} onClick=${held.press(() => run('Revoke', 'DELETE', `/v1/dashboard/browsers/${encodeURIComponent(g.grant_id)}`))}>Revoke</button>`}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}
