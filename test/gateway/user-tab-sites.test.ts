/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The gateway's half of the site rules on the user's tab: a denied or high-risk-category site is
 * refused before the controller hears of it, and the refusal is in the audit log; what the user shared
 * or granted is the extension's to judge, so other sites go through.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { navigateAnswer, TestController } from './fixtures/controller.js';
import { ENABLED_CONFIG, startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { RecordingBackend } from './fixtures/recording-backend.js';

const COMMAND = 'browser.controller.command';

describe("site rules on the user's tab, in the gateway", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({
      backend: new RecordingBackend(),
      config: { ...ENABLED_CONFIG, safety: { sites: { deny: ['*.evil.test'] } } },
    });
  });
  after(() => gw.close());

  const navigate = (sessionId: string, url: string) =>
    gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_navigate`, { body: { url } });

  it('refuses a denied site and a banking site with site_blocked before the controller hears of it', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    for (const url of [
      'https://login.evil.test/',
      'https://www.CHASE.com./accounts',
      'https://me:x@paypal.com/',
    ]) {
      const result = await navigate(sessionId, url);
      assert.equal(result.status, 403, url);
      assert.equal(result.body.error.code, 'site_blocked', url);
    }
    await controller.nothing(COMMAND);
    const audit = await gw.request('GET', `/v1/audit?session=${sessionId}`);
    const { entries } = audit.body as {
      entries: {
        action: string;
        outcome: string;
        context: { site_policy: Record<string, unknown>; rule: string };
      }[];
    };
    assert.deepEqual(
      entries.map((entry) => `${entry.action} ${entry.outcome}`),
      ['browser_navigate site_blocked', 'browser_navigate site_blocked', 'browser_navigate site_blocked'],
    );
    // Each refusal names the rule that refused and the policy it was judged by.
    assert.deepEqual(
      entries.map((entry) => entry.context.rule),
      // A URL with a user name in it names no site the rules can judge: refused as such.
      ['denied', 'high_risk', 'not_a_site'],
    );
    for (const entry of entries) {
      assert.equal(entry.context.site_policy.browser, 'user_tab');
      assert.equal(entry.context.site_policy.mode, 'ask');
      assert.deepEqual(entry.context.site_policy.deny, ['*.evil.test']);
      assert.ok((entry.context.site_policy.blocked_categories as string[]).includes('banking'));
    }
    await controller.close();
  });

  it("copies the policy into the audit row of the extension's own site refusal, and of no other", async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    const granted = await gw.request('POST', `/v1/sessions/${sessionId}/site-grants`, {
      body: { site: 'https://shop.example' },
      headers: { authorization: `Bearer ${gw.operatorKey}` },
    });
    assert.equal(granted.status, 200, JSON.stringify(granted.body));
    const refused = navigate(sessionId, 'https://elsewhere.example/');
    let command = await controller.next(COMMAND);
    controller.result(command.params.command_id, false, { code: 'site_not_granted', message: 'not granted' });
    assert.equal((await refused).body.error.controller_code, 'site_not_granted');
    // The rule the extension names comes with its refusal; an older one's, without it, is still read.
    const denied = navigate(sessionId, 'https://elsewhere.example/');
    command = await controller.next(COMMAND);
    controller.result(command.params.command_id, false, {
      code: 'site_blocked',
      message: 'denied',
      rule: 'denied',
    });
    assert.equal((await denied).body.error.controller_code, 'site_blocked');
    const failed = navigate(sessionId, 'https://shop.example/');
    command = await controller.next(COMMAND);
    controller.result(command.params.command_id, false, { code: 'navigation_failed', message: 'no route' });
    assert.equal((await failed).status, 502);
    const audit = await gw.request('GET', `/v1/audit?session=${sessionId}`);
    // The owner's grant is a row of its own (site.grant); the two calls follow it.
    const [siteRow, deniedRow, otherRow] = (
      audit.body.entries as {
        action: string;
        context: { site_policy?: { granted: string[] }; rule?: string } | null;
      }[]
    ).filter((entry) => entry.action === 'browser_navigate');
    assert.deepEqual(siteRow?.context?.site_policy?.granted, ['https://shop.example']);
    assert.equal(siteRow?.context?.rule, undefined);
    assert.equal(deniedRow?.context?.rule, 'denied');
    assert.equal(otherRow?.context, null);
    await controller.close();
  });

  it('leaves other sites to the extension, which knows what the user shared', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    const pending = navigate(sessionId, 'https://docs.example.com/');
    const command = await controller.next(COMMAND);
    controller.result(command.params.command_id, true, navigateAnswer('https://docs.example.com/'));
    assert.equal((await pending).status, 200);
    const shown = await gw.request('GET', `/v1/sessions/${sessionId}`);
    assert.equal(shown.body.sites.browser, 'user_tab');
    assert.equal(shown.body.sites.mode, 'ask');
    await controller.close();
  });
});
