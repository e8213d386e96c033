/**
 * Ticket abuse: replays, expired tickets, races, tickets in the query string, wrong Origin or Host, and
 * forged tickets, many times over. Zero of them may open a controller socket.
 * Bounded: 20 attempts of each kind. Full (SOAK=1): 500.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../src/gateway/clock.js';
import { rawUpgrade, register, TestController, ticketProtocols } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { startUnthrottledGateway } from './fixtures/in-process-gateway.js';
import { scaled } from './fixtures/scale.js';

const ATTEMPTS = scaled(20, 500);
const RACERS = scaled(8, 32);

describe(`ticket abuse: ${ATTEMPTS} attempts of each kind`, () => {
  let now = 1_700_000_000_000;
  const clock: Clock = { now: () => now };
  let gw: TestGateway;
  let sessionId: string;
  before(async () => {
    gw = await startUnthrottledGateway({ clock });
    sessionId = await gw.createSession();
  });
  after(() => gw.close());

  const upgrade = (ticket: string, o: { headers?: Record<string, string>; path?: string } = {}) =>
    rawUpgrade(gw, { protocols: ticketProtocols(ticket), ...o });

  it('refuses every replay of a ticket that opened a socket', async () => {
    for (let i = 0; i < ATTEMPTS; i++) {
      const ticket = await register(gw, { sessionId, controllerId: `replay-${i}` });
      const controller = await TestController.open(gw, ticket);
      const replays = await Promise.all([upgrade(ticket), upgrade(ticket)]);
      assert.deepEqual(replays, [401, 401]);
      await controller.close();
      assert.equal(await upgrade(ticket), 401, 'still refused after the first socket closed');
    }
  });

  it('refuses every ticket used strictly after its 30 s', async () => {
    const tickets: string[] = [];
    for (let i = 0; i < ATTEMPTS; i++)
      tickets.push(await register(gw, { sessionId, controllerId: `exp-${i}` }));
    now += 30_001;
    const statuses = await Promise.all(tickets.map((ticket) => upgrade(ticket)));
    assert.deepEqual(
      statuses.filter((s) => s !== 401),
      [],
    );
  });

  it(`lets exactly one of ${RACERS} racing upgrades through per ticket`, async () => {
    for (let i = 0; i < ATTEMPTS; i++) {
      const ticket = await register(gw, { sessionId, controllerId: `race-${i}` });
      const statuses = await Promise.all(Array.from({ length: RACERS }, () => upgrade(ticket)));
      assert.equal(statuses.filter((s) => s === 101).length, 1);
      assert.equal(statuses.filter((s) => s === 401).length, RACERS - 1);
    }
  });

  it('refuses a ticket carried in the query string, in any parameter', async () => {
    for (let i = 0; i < ATTEMPTS; i++) {
      const ticket = await register(gw, { sessionId, controllerId: `query-${i}` });
      const name = ['ticket', 'TICKET', 't', 'access', `x${i}`][i % 5] as string;
      assert.equal(await upgrade(ticket, { path: `/v1/browser-control/ws?${name}=${ticket}` }), 401);
    }
  });

  it('refuses a web page Origin and a rebinding Host', async () => {
    const port = new URL(gw.url).port;
    for (let i = 0; i < ATTEMPTS; i++) {
      const ticket = await register(gw, { sessionId, controllerId: `origin-${i}` });
      const origin = [
        'https://evil.example',
        'null',
        `http://127.0.0.1:${port}`,
        'chrome-extension://' + 'a'.repeat(32),
      ][i % 4] as string;
      assert.equal(await upgrade(ticket, { headers: { origin } }), 403);
      const host = [`evil.example:${port}`, `127.0.0.1.nip.io:${port}`, `localhost:1`, `[::2]:${port}`][
        i % 4
      ] as string;
      assert.equal(await upgrade(ticket, { headers: { host } }), 403);
    }
  });

  it('refuses forged tickets of the right shape', async () => {
    const statuses = await Promise.all(
      Array.from({ length: ATTEMPTS }, () => upgrade(randomBytes(32).toString('base64url'))),
    );
    assert.deepEqual(
      statuses.filter((s) => s !== 401),
      [],
    );
  });
});
