import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../src/gateway/clock.js';
import { CONTROLLER_SUBPROTOCOL, TICKET_SUBPROTOCOL_PREFIX } from '../../src/protocol/index.js';
import {
  rawUpgrade,
  register,
  TestController,
  ticketProtocols,
  upgradeAnswer,
} from './fixtures/controller.js';
import { ENABLED_CONFIG, startTestGateway, type TestGateway } from './fixtures/gateway.js';

describe('GET /v1/browser-control/ws guards', () => {
  let gw: TestGateway;
  let sessionId: string;
  before(async () => {
    gw = await startTestGateway();
    sessionId = await gw.createSession();
  });
  after(() => gw.close());

  /** Every refusal must leave the ticket usable: the socket then opens with the same ticket. */
  async function assertStillUsable(ticket: string): Promise<void> {
    const controller = await TestController.open(gw, ticket);
    assert.equal(controller.ws.protocol, CONTROLLER_SUBPROTOCOL);
    await controller.close();
  }

  it('answers 404 while the feature is off, without consuming the ticket', async () => {
    const ticket = await register(gw, { sessionId });
    gw.writeConfig({ browser: { extension_control: { enabled: false } } });
    try {
      assert.deepEqual(await upgradeAnswer(gw, { protocols: ticketProtocols(ticket) }), {
        status: 404,
        code: 'browser_control_disabled',
      });
    } finally {
      gw.writeConfig(ENABLED_CONFIG);
    }
    await assertStillUsable(ticket);
  });

  it('answers 401 when the protocol subprotocol is missing, without consuming the ticket', async () => {
    const ticket = await register(gw, { sessionId });
    assert.deepEqual(await upgradeAnswer(gw, { protocols: [TICKET_SUBPROTOCOL_PREFIX + ticket] }), {
      status: 401,
      code: 'invalid_ticket',
    });
    await assertStillUsable(ticket);
  });

  it('answers 401 for zero or two ticket subprotocols, without consuming the ticket', async () => {
    const ticket = await register(gw, { sessionId });
    assert.deepEqual(await upgradeAnswer(gw, { protocols: [CONTROLLER_SUBPROTOCOL] }), {
      status: 401,
      code: 'invalid_ticket',
    });
    const twice = [...ticketProtocols(ticket), TICKET_SUBPROTOCOL_PREFIX + 'other'];
    assert.deepEqual(await upgradeAnswer(gw, { protocols: twice }), { status: 401, code: 'invalid_ticket' });
    await assertStillUsable(ticket);
  });

  it('answers 401 for a ticket in the query string, without consuming the ticket', async () => {
    const ticket = await register(gw, { sessionId });
    const path = `/v1/browser-control/ws?ticket=${ticket}`;
    assert.deepEqual(await upgradeAnswer(gw, { protocols: ticketProtocols(ticket), path }), {
      status: 401,
      code: 'invalid_ticket',
    });
    await assertStillUsable(ticket);
  });

  it('answers 403 for a web page Origin, without consuming the ticket', async () => {
    const ticket = await register(gw, { sessionId });
    const headers = { origin: 'https://evil.example' };
    assert.deepEqual(await upgradeAnswer(gw, { protocols: ticketProtocols(ticket), headers }), {
      status: 403,
      code: 'forbidden_origin',
    });
    await assertStillUsable(ticket);
  });

  it('answers 403 for a Host that is not the bound loopback name, without consuming the ticket', async () => {
    const ticket = await register(gw, { sessionId });
    const headers = { host: 'rebound.example:8642' };
    assert.deepEqual(await upgradeAnswer(gw, { protocols: ticketProtocols(ticket), headers }), {
      status: 403,
      code: 'forbidden_host',
    });
    await assertStillUsable(ticket);
  });

  it('answers 401 for an unknown ticket and for a ticket used twice', async () => {
    assert.deepEqual(await upgradeAnswer(gw, { protocols: ticketProtocols('A'.repeat(43)) }), {
      status: 401,
      code: 'invalid_ticket',
    });
    const ticket = await register(gw, { sessionId });
    const controller = await TestController.open(gw, ticket);
    assert.deepEqual(await upgradeAnswer(gw, { protocols: ticketProtocols(ticket) }), {
      status: 401,
      code: 'invalid_ticket',
    });
    await controller.close();
  });

  it('lets exactly one of many racing upgrades with one ticket through', async () => {
    const ticket = await register(gw, { sessionId });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () => rawUpgrade(gw, { protocols: ticketProtocols(ticket) })),
    );
    assert.equal(statuses.filter((s) => s === 101).length, 1);
    assert.equal(statuses.filter((s) => s === 401).length, 19);
  });
});

describe('ticket expiry', () => {
  it('accepts a ticket at exactly its expiry and refuses it strictly after', async () => {
    let now = 1_000_000;
    const clock: Clock = { now: () => now };
    const gw = await startTestGateway({ clock });
    try {
      const sessionId = await gw.createSession();
      const atExpiry = await register(gw, { sessionId });
      const late = await register(gw, { sessionId });
      now += 30_000;
      const controller = await TestController.open(gw, atExpiry);
      await controller.close();
      now += 1;
      assert.deepEqual(await upgradeAnswer(gw, { protocols: ticketProtocols(late) }), {
        status: 401,
        code: 'invalid_ticket',
      });
    } finally {
      await gw.close();
    }
  });
});
