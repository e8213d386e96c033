/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * Approvals and vault secrets on Camofox (docs/providers.md, "Camofox"): with approval classes on for
 * remote browsers, Camofox cannot show tabgate what an input would set off, so every click, submitted
 * text and key waits for the person, and nothing reaches the page before they approve. A vault secret is
 * never typed there. A fake Camofox server drives a real Chromium; the page reports each press.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Vault } from '../../src/gateway/secrets/index.js';
import { startTestGateway, type HttpResult, type TestGateway } from '../gateway/fixtures/gateway.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { errorCode, toolSession } from '../security/fixtures/tool-session.js';
import { startFakeCamofox, type FakeCamofox } from './fixtures/fake-camofox.js';

describe('Camofox with approval classes on for remote browsers', () => {
  let chromium: LocalChromium;
  let camofox: FakeCamofox;
  let site: http.Server;
  let siteUrl: string;
  let gw: TestGateway;
  let sid: string;
  /** Every press the page reported. */
  const presses: string[] = [];

  const call = (tool: string, args: Record<string, unknown> = {}): Promise<HttpResult> =>
    gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args });
  const { ok, refOf } = toolSession(call);
  const asOwner = (method: string, path: string) =>
    gw.request(method, path, { headers: { authorization: `Bearer ${gw.operatorKey}` } });

  before(async () => {
    site = http.createServer((request, response) => {
      if (request.url === '/pressed') presses.push('save');
      response.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' });
      response.end(`<!doctype html><title>Profile</title><button onclick="fetch('/pressed')">Save</button>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    chromium = await launchChromium();
    camofox = await startFakeCamofox({ cdpUrl: chromium.wsEndpoint });
    gw = await startTestGateway({
      config: {
        browser: { cloud_provider: 'camofox', allow_private_urls: true },
        safety: { approvals: { remote: ['form_submit'] } },
      },
      env: { CAMOFOX_URL: camofox.url },
    });
    sid = await gw.createSession();
  });
  after(async () => {
    await gw?.close();
    await camofox?.close();
    chromium?.kill();
    site?.closeAllConnections();
    await new Promise<void>((resolve) => site?.close(() => resolve()));
  });

  it('asks before every click, and clicks once only after the owner approves', async () => {
    await ok('browser_navigate', { url: siteUrl });
    const save = await refOf('button "Save"');
    const asked = await call('browser_click', { ref: save, wait: false });
    assert.equal(asked.status, 409, JSON.stringify(asked.body));
    assert.equal(errorCode(asked), 'approval_required');
    const id = (asked.body as { error: { approval_id: string } }).error.approval_id;
    const pending = await asOwner('GET', `/v1/approvals/${id}`);
    assert.match(pending.body.approval.summary as string, /click @e\d+ on http:\/\/127\.0\.0\.1/);
    assert.equal(camofox.requests.filter((r) => r.endsWith('/click')).length, 0);
    assert.equal((await asOwner('POST', `/v1/approvals/${id}/approve`)).status, 200);
    await ok('browser_click', { ref: save, wait: false });
    assert.equal(camofox.requests.filter((r) => r.endsWith('/click')).length, 1);
    // The next click asks anew.
    assert.equal(errorCode(await call('browser_click', { ref: save, wait: false })), 'approval_required');
    assert.equal(camofox.requests.filter((r) => r.endsWith('/click')).length, 1);
  });

  it('never types a vault secret, and types nothing instead', async () => {
    new Vault(gw.home).add(
      { name: 'site-pass', origin: new URL(siteUrl).origin, field: 'password', value: 'hunter2-camofox' },
      new Date(),
    );
    const before = camofox.requests.length;
    const typed = await call('browser_type', { ref: await refOf('button "Save"'), secret: 'site-pass' });
    assert.equal(errorCode(typed), 'unsupported_on_backend', JSON.stringify(typed.body));
    assert.ok(
      camofox.requests.slice(before).every((r) => !r.endsWith('/type')),
      camofox.requests.join('\n'),
    );
  });
});
