/** Settings: the effective configuration, read-only with secrets hidden, and the command that changes each part. */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';

interface Settings {
  config: unknown;
  backend: string;
  cloud_provider: string | null;
  extension_control: boolean;
}

export function SettingsView() {
  const [settings, setSettings] = useState<Settings | null>(null);
  useEffect(() => void getJson<Settings>('/v1/dashboard/settings').then(setSettings, () => undefined), []);
  if (!settings) return html`<p>Loading…</p>`;
  return html`<section aria-labelledby="settings-title">
    <h2 id="settings-title">Settings</h2>
    <dl class="facts">
      <dt>Browser for new sessions</dt>
      <dd>${settings.backend} — change with <code>tabgate tools</code></dd>
      <dt>Cloud provider</dt>
      <dd>${settings.cloud_provider ?? 'none (local Chromium)'} — <code>tabgate tools</code></dd>
      <dt>Extension control</dt>
      <dd>
        ${settings.extension_control ? 'on' : 'off'} — <code>browser.extension_control.enabled</code> in
        config.yaml (read live)
      </dd>
    </dl>
    <h3>Effective configuration (secrets hidden)</h3>
    <pre id="config">${JSON.stringify(settings.config, null, 2)}</pre>
  </section>`;
}
