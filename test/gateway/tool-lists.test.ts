/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- tests read JSON bodies */
/** `GET /v1/tools?session=`: a session's tool list is what can run where its calls go now. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CONTROLLER_CAPABILITIES, TOOLS } from '../../src/protocol/index.js';
import { TestController } from './fixtures/controller.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';

const namesOf = (body: { tools: { name: string }[] }) => body.tools.map((tool) => tool.name).sort();

describe('per-session tool lists', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  it('lists the whole catalog without a session, and every tool for a session on the local browser', async () => {
    const all = await gw.request('GET', '/v1/tools');
    assert.equal(all.body.tools.length, TOOLS.length);
    const sessionId = await gw.createSession();
    const local = await gw.request('GET', `/v1/tools?session=${sessionId}`);
    assert.deepEqual(namesOf(local.body), TOOLS.map((tool) => tool.name).sort());
  });

  it("lists only what the user's browser was granted once a controller serves the session, and the gateway's takeover", async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, {
      sessionId,
      capabilities: [...CONTROLLER_CAPABILITIES],
    });
    try {
      const bound = await gw.request('GET', `/v1/tools?session=${sessionId}`);
      assert.deepEqual(
        namesOf(bound.body),
        [
          ...CONTROLLER_CAPABILITIES.filter((name) => name !== 'controller.noop'),
          // A pause the gateway holds while the person acts, not a command: protocol v1 never sees it.
          'browser_request_takeover',
        ].sort(),
      );
    } finally {
      controller.ws.close();
    }
  });

  it('answers 404 session_not_found for a session the caller does not have', async () => {
    const result = await gw.request('GET', '/v1/tools?session=nope');
    assert.equal(result.status, 404);
    assert.equal(result.body.error.code, 'session_not_found');
  });
});
