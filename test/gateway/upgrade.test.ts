import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../src/gateway/clock.js';
import { CONTROLLER_SUBPROTOCOL, TICKET_SUBPROTOCOL_PREFIX } from '../../src/protocol/index.js';
import { rawUpgrade, register, TestController, ticketProtocols } from './fixtures/controller.js';
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
      assert.equal(await rawUpgrade(gw, { protocols: ticketProtocols(ticket) }), 404);
    } finally {
      gw.writeConfig(ENABLED_CONFIG);
    }
    await assertStillUsable(ticket);
  });

  it('answers 401 when the protocol subprotocol is missing, without consuming the ticket', async () => {
    const ticket = await register(gw, { sessionId });
    assert.equal(await rawUpgrade(gw, { protocols: [TICKET_SUBPROTOCOL_PREFIX + ticket] }), 401);
    await assertStillUsable(ticket);
  });

  it('answers 401 for zero or two ticket subprotocols, without consuming the ticket', async () => {
    const ticket = await register(gw, { sessionId });
    assert.equal(await rawUpgrade(gw, { protocols: [CONTROLLER_SUBPROTOCOL] }), 401);
    const twice = [...ticketProtocols(ticket), TICKET_SUBPROTOCOL_PREFIX + 'other'];
    assert.equal(await rawUpgrade(gw, { protocols: twice }), 401);
    await assertStillUsable(ticket);
  });

  it('answers 401 for a ticket in the query string, without consuming the ticket', async () => {
    const ticket = await register(gw, { sessionId });
    const path = `/v1/browser-control/ws?ticket=${ticket}`;
    assert.equal(await rawUpgrade(gw, { protocols: ticketProtocols(ticket), path }), 401);
    await assertStillUsable(ticket);
  });

  it('answers 403 for a web page Origin, without consuming the ticket', async () => {
    const ticket = await register(gw, { sessionId });
    const headers = { origin: 'https://evil.example' };
    assert.equal(await rawUpgrade(gw, { protocols: ticketProtocols(ticket), headers }), 403);
    await assertStillUsable(ticket);
  });

  it('answers 403 for a Host that is not the bound loopback name, without consuming the ticket', async () => {
    const ticket = await register(gw, { sessionId });
    const headers = { host: 'rebound.example:8642' };
    assert.equal(await rawUpgrade(gw, { protocols: ticketProtocols(ticket), headers }), 403);
    await assertStillUsable(ticket);
  });

  it('answers 401 for an unknown ticket and for a ticket used twice', async () => {
    assert.equal(await rawUpgrade(gw, { protocols: ticketProtocols('A'.repeat(43)) }), 401);
    const ticket = await register(gw, { sessionId });
    const controller = await TestController.open(gw, ticket);
    assert.equal(await rawUpgrade(gw, { protocols: ticketProtocols(ticket) }), 401);
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
      assert.equal(await rawUpgrade(gw, { protocols: ticketProtocols(late) }), 401);
    } finally {
      await gw.close();
    }
  });
});
