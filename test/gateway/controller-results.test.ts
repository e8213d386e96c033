/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * A controller's answer is held to its tool's result schema at the gateway: a protocol v1 controller
 * that answers in a known variant keeps working (its answer rewritten, one notice in the log), and an
 * answer nobody can read fails the call instead of reaching the agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { startControlledSession, type ControlledSession } from './fixtures/controlled-session.js';
import { tabsAnswer, type TestController } from './fixtures/controller.js';
import type { TestGateway } from './fixtures/gateway.js';

const COMMAND = 'browser.controller.command';

function pngDataUrl(width: number, height: number): string {
  const png = new PNG({ width, height });
  return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
}

describe('controller results against the catalog', () => {
  let gw: TestGateway;
  let controller: TestController;
  let sessionId: string;

  let running: ControlledSession | undefined;

  before(async () => {
    running = await startControlledSession();
    ({ gw, sessionId, controller } = running);
  });
  after(() => running?.close());

  /** One call answered with `answer` by the controller; the gateway's HTTP reply. */
  async function answered(tool: string, answer: unknown, args: unknown = {}) {
    const pending = gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body: args });
    const command = await controller.next(COMMAND);
    controller.result(command.params.command_id, true, answer);
    return pending;
  }

  it('turns a screenshot sent as a data URL into the catalog’s shape, its size read from the image', async () => {
    const dataUrl = pngDataUrl(7, 5);
    const reply = await answered('browser_screenshot', { dataUrl });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.result, {
      mime_type: 'image/png',
      data: dataUrl.slice('data:image/png;base64,'.length),
      width: 7,
      height: 5,
      full_page: false,
    });
  });

  it('logs one notice per tool and field of a variant, naming them and never the value', async () => {
    const dataUrl = pngDataUrl(3, 2);
    for (let i = 0; i < 2; i++)
      assert.equal((await answered('browser_screenshot', { data_url: dataUrl })).status, 200);
    const notices = gw.logLines.filter((line) => line.includes('controller result normalised'));
    const snake = notices.filter((line) => line.includes('field=data_url'));
    assert.equal(snake.length, 1);
    assert.match(snake[0] ?? '', /tool=browser_screenshot/);
    assert.ok(notices.every((line) => !line.includes('base64')));
  });

  it('turns a snapshot sent as text into the catalog’s shape', async () => {
    const reply = await answered('browser_snapshot', { text: '- button "Send" @e1\n- link "Home" @e2' });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.result.snapshot, '- button "Send" @e1\n- link "Home" @e2');
    assert.equal(reply.body.result.ref_count, 2);
    assert.equal(reply.body.result.next_offset, null);
  });

  it('fails with controller_result_invalid naming the field, not its value, when no shape fits', async () => {
    const reply = await answered('browser_tabs', {
      tabs: [{ id: 'page text the user would not share', url: 'https://a.test/', title: 'A', active: true }],
    });
    assert.equal(reply.status, 502);
    assert.equal(reply.body.error.code, 'controller_result_invalid');
    const message = String(reply.body.error.message);
    assert.match(message, /browser_tabs/);
    assert.match(message, /tabs\.0\.id: expected number/);
    assert.doesNotMatch(message, /page text/);
  });

  it('fails a bare string answer rather than passing it to the agent', async () => {
    const reply = await answered('browser_tabs', 'done');
    assert.equal(reply.status, 502);
    assert.equal(reply.body.error.code, 'controller_result_invalid');
  });

  it('passes only the fields the catalog declares', async () => {
    const reply = await answered('browser_tabs', { ...tabsAnswer('kept'), cookies: 'session=abc' });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.result, tabsAnswer('kept'));
  });
});
