/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * A call to the user's tab on the owner's timeline: it shows as running while the controller has the
 * command (the entry is made once the command has left, not after the answer), and ends with the outcome
 * the agent got: `ok` and the page it left, or the error's code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { navigateAnswer, tabsAnswer, TestController } from './fixtures/controller.js';
import type { ActionEntry } from '../../src/gateway/activity/session-activity.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';

describe("the timeline of a call to the user's tab", () => {
  let gw: TestGateway;
  let sessionId: string;
  let controller: TestController;
  before(async () => {
    gw = await startTestGateway();
    sessionId = await gw.createSession();
    controller = await TestController.connect(gw, { sessionId });
  });
  after(async () => {
    await controller.close();
    await gw.close();
  });

  /** The session's entries, oldest first, as the owner's dashboard reads them. */
  const timeline = async (): Promise<ActionEntry[]> => {
    const view = await gw.request('GET', `/v1/dashboard/sessions/${sessionId}`, {
      headers: { authorization: `Bearer ${gw.operatorKey}` },
    });
    assert.equal(view.status, 200);
    return view.body.timeline as ActionEntry[];
  };
  const last = (entries: ActionEntry[]): ActionEntry => {
    const entry = entries.at(-1);
    assert.ok(entry, 'the timeline has an entry');
    return entry;
  };
  /** The command of `tool`: the dashboard's view also asks the tab for a screenshot, which is skipped. */
  const commandOf = async (tool: string) => {
    for (;;) {
      const command = await controller.next('browser.controller.command');
      if (command.params.action === tool) return command;
    }
  };
  const call = (tool: string, body: unknown) =>
    gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body });

  it('shows the call running while the controller has it, then ok with the page it left', async () => {
    const answered = call('browser_navigate', { url: 'https://shop.example/cart' });
    const command = await commandOf('browser_navigate');
    const running = last(await timeline());
    assert.equal(running.tool, 'browser_navigate');
    assert.deepEqual(running.arguments, { url: 'https://shop.example/cart' });
    assert.equal(running.outcome, null, 'still running: the controller has not answered');
    assert.equal(running.duration_ms, null);
    assert.ok(Number.isFinite(Date.parse(running.started_at)));

    controller.result(command.params.command_id, true, navigateAnswer('https://shop.example/cart'));
    assert.equal((await answered).status, 200);
    const ended = last(await timeline());
    assert.equal(ended.seq, running.seq, 'the same entry, ended');
    assert.equal(ended.outcome, 'ok');
    assert.equal(typeof ended.duration_ms, 'number');
    assert.deepEqual(ended.page, { url: 'https://shop.example/cart', title: '' });
  });

  it("ends with the error's code when the browser refuses; the next call is a new entry after it", async () => {
    const refused = call('browser_tabs', {});
    const command = await commandOf('browser_tabs');
    controller.result(command.params.command_id, false, { code: 'tab_closed', message: 'gone' });
    const answer = await refused;
    assert.notEqual(answer.status, 200);
    const failed = last(await timeline());
    assert.equal(failed.tool, 'browser_tabs');
    assert.equal(failed.outcome, answer.body.error.code, 'the code the agent got');
    assert.equal(failed.page, null);

    const next = call('browser_tabs', {});
    controller.result((await commandOf('browser_tabs')).params.command_id, true, tabsAnswer('x'));
    assert.equal((await next).status, 200);
    const [older, newer] = (await timeline()).slice(-2) as [ActionEntry, ActionEntry];
    assert.equal(older.seq, failed.seq);
    assert.ok(newer.seq > older.seq);
    assert.equal(newer.outcome, 'ok');
  });

  it('says the tab was last seen on a page once a click since may have moved it, until a result names one', async () => {
    const page = async () => {
      const view = await gw.request('GET', `/v1/dashboard/sessions/${sessionId}`, {
        headers: { authorization: `Bearer ${gw.operatorKey}` },
      });
      return view.body.session.page as { url: string; current: boolean } | null;
    };
    const answer = async (tool: string, body: unknown, result: unknown) => {
      const answered = call(tool, body);
      controller.result((await commandOf(tool)).params.command_id, true, result);
      assert.equal((await answered).status, 200);
    };
    await answer(
      'browser_navigate',
      { url: 'https://shop.example/pay' },
      navigateAnswer('https://shop.example/pay'),
    );
    assert.deepEqual(await page(), { url: 'https://shop.example/pay', title: '', current: true });
    // Looking moves nothing.
    await answer('browser_tabs', {}, tabsAnswer('https://shop.example/pay'));
    assert.equal((await page())?.current, true);
    // The click's result names no page: it may have left this one.
    await answer('browser_click', { ref: 'e1' }, { clicked: 'button "Pay"' });
    assert.deepEqual(await page(), { url: 'https://shop.example/pay', title: '', current: false });
    await answer(
      'browser_navigate',
      { url: 'https://shop.example/done' },
      navigateAnswer('https://shop.example/done'),
    );
    assert.deepEqual(await page(), { url: 'https://shop.example/done', title: '', current: true });
  });
});
