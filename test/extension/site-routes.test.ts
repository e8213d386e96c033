/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call -- tests read JSON bodies */
/**
 * The extension's own channel for site grants on the user's tab (`/v1/browser-control/sessions/{id}/sites`):
 * the paired extension reads the policy it enforces and records what the person granted, denied or
 * revoked in its popup; the gateway then holds the same grant `tabgate grants` shows. The agent's API
 * key can neither read nor grant there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestController } from '../gateway/fixtures/controller.js';
import { ENABLED_CONFIG, startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { extensionHeaders, pairedToken, withToken } from './pairing-helpers.js';

describe("the extension's site grant routes", () => {
  let gw: TestGateway;
  let token: string;
  before(async () => {
    gw = await startTestGateway({
      backend: new RecordingBackend(),
      config: { ...ENABLED_CONFIG, safety: { sites: { deny: ['denied.example'] } } },
    });
    ({ token } = await pairedToken(gw));
  });
  after(() => gw.close());

  const asExtension = (method: string, path: string, body?: unknown) =>
    gw.request(method, path, { body, headers: withToken(token, { origin: extensionHeaders.origin }) });
  const sitesPath = (sessionId: string) => `/v1/browser-control/sessions/${sessionId}/sites`;
  const newSession = async (sites: string[]) => {
    const created = await gw.request('POST', '/v1/sessions', { body: { title: 'mail', sites } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.session_id as string;
  };

  it('gives the paired extension the policy it enforces on the user tab', async () => {
    const sessionId = await newSession(['https://mail.example.com', '*.docs.example']);
    const read = await asExtension('GET', sitesPath(sessionId));
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.deepEqual(read.body.policy.grants, []);
    assert.equal(read.body.policy.mode, 'ask');
    assert.deepEqual(read.body.policy.deny, ['denied.example']);
    assert.ok(read.body.policy.blockedCategories.includes('banking'));
    assert.deepEqual(read.body.sites.requested, ['https://mail.example.com', '*.docs.example']);
    // The extension reads this every 3 s while it shares a tab: its reads are logged at debug only.
    const reads = gw.logLines.filter((line) => line.includes(`path=${sitesPath(sessionId)} `));
    assert.ok(reads.length > 0);
    assert.ok(
      reads.every((line) => / debug +request /.test(line)),
      reads.join('\n'),
    );
  });

  it("refuses the agent's API key, to read or to grant", async () => {
    const sessionId = await newSession(['https://mail.example.com']);
    const read = await gw.request('GET', sitesPath(sessionId));
    assert.equal(read.status, 403);
    assert.equal(read.body.error.code, 'operator_required');
    const granted = await gw.request('POST', `${sitesPath(sessionId)}/grant`, {
      body: { site: 'https://mail.example.com' },
    });
    assert.equal(granted.status, 403);
    assert.equal(granted.body.error.code, 'operator_required');
    const shown = await gw.request('GET', `/v1/sessions/${sessionId}`);
    assert.deepEqual(shown.body.sites.granted, []);
  });

  it('grants only to a session a user browser serves', async () => {
    const sessionId = await newSession(['https://mail.example.com']);
    const granted = await asExtension('POST', `${sitesPath(sessionId)}/grant`, {
      site: 'https://mail.example.com',
    });
    assert.equal(granted.status, 403);
    assert.equal(granted.body.error.code, 'token_scope_forbidden');
  });

  it('records grant, deny and revoke where the gateway and the owner see them', async () => {
    const sessionId = await newSession(['https://mail.example.com', 'https://ads.example']);
    const controller = await TestController.connect(gw, { sessionId });
    try {
      const granted = await asExtension('POST', `${sitesPath(sessionId)}/grant`, {
        site: 'https://MAIL.example.com:443/',
      });
      assert.equal(granted.status, 200, JSON.stringify(granted.body));
      assert.equal(granted.body.granted, 'https://mail.example.com');
      assert.deepEqual(granted.body.policy.grants, ['https://mail.example.com']);
      const denied = await asExtension('POST', `${sitesPath(sessionId)}/deny`, {
        site: 'https://ads.example',
      });
      assert.equal(denied.status, 200, JSON.stringify(denied.body));
      assert.deepEqual(denied.body.sites.requested, []);
      const owner = await gw.request('GET', `/v1/sessions/${sessionId}/site-grants`, {
        headers: { authorization: `Bearer ${gw.operatorKey}` },
      });
      assert.deepEqual(owner.body.sites.granted, ['https://mail.example.com']);
      const revoked = await asExtension('POST', `${sitesPath(sessionId)}/revoke`, {
        site: 'https://mail.example.com',
      });
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      assert.deepEqual(revoked.body.policy.grants, []);
      const again = await asExtension('POST', `${sitesPath(sessionId)}/revoke`, {
        site: 'https://mail.example.com',
      });
      assert.equal(again.status, 400);
      assert.equal(again.body.error.code, 'invalid_request');
      const bad = await asExtension('POST', `${sitesPath(sessionId)}/grant`, { site: 'https://a@b.example' });
      assert.equal(bad.status, 400);
      // What the person did in the popup is in the audit log, refusals included.
      const audit = await gw.request('GET', `/v1/audit?session=${sessionId}`);
      const rows = audit.body.entries as { action: string; arguments: unknown; outcome: string }[];
      assert.deepEqual(
        rows.map((row) => [row.action, row.arguments, row.outcome]),
        [
          ['site.grant', { site: 'https://MAIL.example.com:443/', channel: 'extension' }, 'ok'],
          ['site.deny', { site: 'https://ads.example', channel: 'extension' }, 'ok'],
          ['site.revoke', { site: 'https://mail.example.com', channel: 'extension' }, 'ok'],
          ['site.revoke', { site: 'https://mail.example.com', channel: 'extension' }, 'invalid_request'],
          ['site.grant', { site: 'https://a@b.example', channel: 'extension' }, 'invalid_request'],
        ],
      );
    } finally {
      await controller.close();
    }
  });
});
