/**
 * Vault secrets on the user's own tab, through the real extension: the value reaches the extension
 * only in the command frame of its one fill, and the extension (the engine in the user's browser)
 * checks the field's frame origin and kind before typing. The gateway cannot see the tab's frames, so
 * these refusals are the extension's own. No form of the value is in any response, the audit files, the
 * journal or the gateway's log.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Vault } from '../../src/gateway/secrets/index.js';
import type { TabgateError } from '../../src/protocol/index.js';
import type { HttpResult } from '../gateway/fixtures/gateway.js';
import { encodingsOf, filesUnder, leaks } from '../security/fixtures/leak-search.js';
import { startLoginSite, type LoginSite } from '../security/fixtures/login-site.js';
import { toolSession } from '../security/fixtures/tool-session.js';
import {
  callTool,
  LOOPBACK_TEST_SITES,
  shareTarget,
  startStage,
  waitFor,
  type Stage,
} from './fixtures/paired-setup.js';

const PASSWORD = `Ext pw/${randomBytes(6).toString('hex')}+?&ü`;
const USERNAME = `bob.${randomBytes(4).toString('hex')}@example.com`;

const errorOf = (result: HttpResult) =>
  (result.body as { error?: { code?: string; controller_code?: string; message?: string } }).error;

describe("vault secrets on the user's tab", () => {
  let site: LoginSite;
  let stage: Stage;
  let sessionId: string;
  const responses: string[] = [];

  const call = async (tool: string, args: Record<string, unknown> = {}) => {
    const result = await callTool(stage, sessionId, tool, args);
    responses.push(JSON.stringify(result.body));
    return result;
  };
  const { ok, refOf } = toolSession(call);
  const refusedByExtension = async (args: Record<string, unknown>) => {
    const result = await call('browser_type', args);
    assert.equal(errorOf(result)?.code, 'controller_rejected', JSON.stringify(result.body));
    assert.equal(errorOf(result)?.controller_code, 'secret_origin_mismatch');
    return result;
  };

  before(async () => {
    site = await startLoginSite();
    stage = await startStage({
      // The fill itself is under test, not its approval (test/extension/approvals.e2e.test.ts).
      config: {
        browser: { extension_control: { enabled: true, command_timeout: 30 } },
        safety: { ...LOOPBACK_TEST_SITES, approvals: { user_tab: 'none' } },
      },
    });
    const vault = new Vault(stage.gw.home);
    vault.add({ name: 'tab-pass', origin: site.origin, field: 'password', value: PASSWORD }, new Date());
    vault.add({ name: 'tab-user', origin: site.origin, field: 'username', value: USERNAME }, new Date());
    const { targetId } = await stage.browser.cdp.openPage(`${site.origin}/login`);
    ({ sessionId } = await shareTarget(stage, targetId, 'vault'));
  });
  after(async () => {
    await stage?.close();
    await site?.close();
  });

  it('fills username and password on their origin, and the site receives them', async () => {
    await ok('browser_navigate', { url: `${site.origin}/login` });
    await ok('browser_type', { ref: await refOf('textbox "Username"'), secret: 'tab-user' });
    assert.match((await ok('browser_snapshot')).snapshot ?? '', /textbox "Username" @e\d+ \[secret, filled/);
    const typed = await ok('browser_type', {
      ref: await refOf('textbox "Password"'),
      secret: 'tab-pass',
      submit: true,
    });
    assert.equal((typed as { secret?: string }).secret, 'tab-pass');
    // The site's own record says when the form arrived (a loaded browser may still be sending it).
    const last = await waitFor('the form to reach the site', async () => site.posted.at(-1));
    assert.equal(last?.get('user'), USERNAME);
    assert.equal(last?.get('pass'), PASSWORD);
    const welcome = await waitFor('the welcome page', async () => {
      const shown = (await ok('browser_snapshot')).snapshot ?? '';
      return shown.includes('Signed in as') ? shown : null;
    });
    assert.match(welcome, /Signed in as «secret:tab-user»/);
  });

  it('is refused by the extension on the look-alike origin, typing nothing', async () => {
    await ok('browser_navigate', { url: `${site.lookalike}/login` });
    await refusedByExtension({ ref: await refOf('textbox "Password"'), secret: 'tab-pass' });
    assert.match((await ok('browser_snapshot')).snapshot ?? '', /textbox "Password" @e\d+ \[password\]\n/);
  });

  it("is refused by the extension inside a cross-origin iframe of the secret's origin", async () => {
    await ok('browser_navigate', { url: `${site.origin}/framed` });
    await refusedByExtension({ ref: await refOf('textbox "Password"'), secret: 'tab-pass' });
    assert.match((await ok('browser_snapshot')).snapshot ?? '', /textbox "Password" @e\d+ \[password\]\n/);
  });

  it('is refused by the extension for a field of the wrong kind', async () => {
    await ok('browser_navigate', { url: `${site.origin}/login` });
    await refusedByExtension({ ref: await refOf('textbox "Username"'), secret: 'tab-pass' });
    await refusedByExtension({ ref: await refOf('searchbox "Search"'), secret: 'tab-user' });
    assert.doesNotMatch((await ok('browser_snapshot')).snapshot ?? '', /filled| = "/);
  });

  it('is refused by the extension with any tool but browser_type, even from a subverted gateway', async () => {
    await ok('browser_navigate', { url: `${site.origin}/login` });
    const ref = await refOf('button "Sign in"');
    const before = site.requests.length;
    // The gateway never sends a secret with another tool: only browser_type's arguments name one.
    // Played here below its checks, straight on its broker, the extension still refuses on its own.
    const { broker } = stage.gw.gateway;
    const lane = broker.laneState({
      principalId: 'owner',
      profileId: 'default',
      sessionId,
      transportFamily: 'local-api',
    });
    const scope = lane.controllers[0]?.scope;
    assert.ok(scope, 'the shared tab has a controller');
    await assert.rejects(
      broker.dispatch({
        scope,
        action: 'browser_click',
        arguments: { ref },
        toolCallId: null,
        secret: { name: 'tab-pass', origin: site.origin, field: 'password', value: PASSWORD },
      }),
      (error: TabgateError) => {
        assert.equal(error.code, 'controller_rejected', error.message);
        assert.equal(error.controllerCode, 'unsupported_action', error.message);
        return true;
      },
    );
    assert.deepEqual(site.requests.slice(before), [], 'the click reached the page');
  });

  it('refuses a navigation carrying the secret before the tab requests anything', async () => {
    const before = site.requests.length;
    for (const [form, text] of Object.entries(encodingsOf(PASSWORD))) {
      const result = await call('browser_navigate', { url: `${site.origin}/other?q=${text}` });
      assert.equal(errorOf(result)?.code, 'secret_in_url', form);
    }
    assert.deepEqual(site.requests.slice(before), []);
  });

  it('leaves no byte of either secret in responses, the audit files, the journal or the log', async () => {
    responses.push(JSON.stringify((await stage.gw.request('GET', '/v1/audit')).body));
    const places = [
      ...responses.map((text, i) => ({ where: `response ${i}`, bytes: Buffer.from(text) })),
      { where: 'log', bytes: Buffer.from(stage.gw.logLines.join('\n')) },
      ...filesUnder(stage.gw.home).map(({ file, bytes }) => ({ where: file, bytes })),
    ];
    assert.deepEqual(leaks([PASSWORD, USERNAME], places), []);
  });
});
