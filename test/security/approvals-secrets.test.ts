/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The first vault secret typed on an origin in a session waits for the owner (docs/safety.md
 * "Approvals", class `secret_first_use`), on the local Chromium: nothing is typed while it waits or
 * after a denial; once approved it is typed, and later secrets on that origin in the session ask nothing.
 * The approval shows the origin and the field, never the value.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Vault } from '../../src/gateway/secrets/index.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { startLoginSite, type LoginSite } from './fixtures/login-site.js';
import { errorCode, toolSession } from './fixtures/tool-session.js';

const PASSWORD = `Tg pw/${randomBytes(6).toString('hex')}`;
const USERNAME = `bob.${randomBytes(4).toString('hex')}@example.com`;

describe('the first vault secret on an origin waits for approval', () => {
  let site: LoginSite;
  let gw: TestGateway;
  let sid: string;
  const call = (tool: string, args: Record<string, unknown> = {}) =>
    gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args });
  const { ok, refOf } = toolSession(call);
  const owner = (method: string, path: string) =>
    gw.request(method, path, { headers: { authorization: `Bearer ${gw.operatorKey}` } });
  const pending = () =>
    waitFor(
      async () =>
        ((await owner('GET', '/v1/approvals?status=pending')).body.approvals as Record<string, unknown>[])[0],
      { what: 'the approval' },
    );

  before(async () => {
    site = await startLoginSite();
    gw = await startTestGateway({
      config: {
        browser: { command_timeout: 20 },
        safety: { approval_timeout_s: 30, approvals: { local: ['secret_first_use'] } },
      },
    });
    const vault = new Vault(gw.home);
    vault.add({ name: 'site-pass', origin: site.origin, field: 'password', value: PASSWORD }, new Date());
    vault.add({ name: 'site-user', origin: site.origin, field: 'username', value: USERNAME }, new Date());
    sid = await gw.createSession();
  });
  after(async () => {
    await gw?.close();
    await site?.close();
  });

  const filled = async (label: string) =>
    new RegExp(`${label}" @e\\d+ \\[secret, filled`).test((await ok('browser_snapshot')).snapshot ?? '');

  it('types nothing while it waits or after a denial; types once approved; asks once per origin', async () => {
    await ok('browser_navigate', { url: `${site.origin}/login` });
    const user = await refOf('textbox "Username"');
    const denied = call('browser_type', { ref: user, secret: 'site-user' });
    const first = await pending();
    assert.deepEqual(first.classes, ['secret_first_use']);
    assert.match(String(first.summary), new RegExp(`type into ${user} textbox "Username" on ${site.origin}`));
    assert.doesNotMatch(JSON.stringify(first), new RegExp(USERNAME.replace(/\./g, '\\.')));
    await owner('POST', `/v1/approvals/${String(first.approval_id)}/deny`);
    const deniedResult = await denied;
    assert.equal(errorCode(deniedResult), 'approval_denied', JSON.stringify(deniedResult.body));
    assert.equal(await filled('textbox "Username'), false, 'nothing was typed');

    const approved = call('browser_type', { ref: user, secret: 'site-user' });
    const second = await pending();
    const decided = await owner('POST', `/v1/approvals/${String(second.approval_id)}/approve`);
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    const approvedResult = await approved;
    assert.equal(approvedResult.status, 200, JSON.stringify(approvedResult.body));
    assert.equal(await filled('textbox "Username'), true);
    // The origin is known now: the password on it asks nothing.
    await ok('browser_type', { ref: await refOf('textbox "Password"'), secret: 'site-pass', submit: true });
    assert.equal(site.posted.at(-1)?.get('pass'), PASSWORD, `the site received ${site.posted.length} posts`);
    const left = await owner('GET', '/v1/approvals?status=pending');
    assert.equal(left.body.approvals.length, 0, JSON.stringify(left.body));
  });
});
