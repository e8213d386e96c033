/**
 * Who the dashboard says serves a session: the session's own browser (kept after the selection changes),
 * a provider's live view as a link only when it is a web address, and the user's tab once bound.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backendOf } from '../../src/gateway/activity/session-summary.js';
import type { SessionRecord } from '../../src/gateway/service.js';

const record = (binding: SessionRecord['binding'] = null): SessionRecord =>
  ({
    session_id: 's1',
    title: null,
    source: 'api',
    principal_id: 'owner',
    created_at: '2026-12-01T00:00:00.000Z',
    binding,
    stopped_at: null,
  }) as SessionRecord;

describe('the backend the dashboard names for a session', () => {
  it("names the session's own browser, not the one new sessions get now", () => {
    const opened = { backend: 'browserbase', provider: 'browserbase' };
    assert.deepEqual(backendOf(record(), 'local', opened), {
      kind: 'provider',
      label: 'cloud browser: browserbase',
    });
    assert.deepEqual(backendOf(record(), 'browserbase', { backend: 'local' }), {
      kind: 'local',
      label: 'local Chromium',
    });
  });

  it("links a provider's live view only when it is an http(s) address", () => {
    const live = (url: string) =>
      backendOf(record(), 'x', { backend: 'browserbase', live_url: url }).live_url;
    assert.equal(live('https://live.example.com/s/1'), 'https://live.example.com/s/1');
    assert.equal(live('javascript:alert(1)'), undefined);
    assert.equal(live('data:text/html,<b>x</b>'), undefined);
    assert.equal(live('not a url'), undefined);
  });
});
