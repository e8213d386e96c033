/**
 * Single use across nodes: many upgrades racing for the same tickets through three gateway processes
 * open exactly one socket per ticket; every other attempt is refused with invalid_ticket.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { register, ticketProtocols, upgradeAnswer } from '../gateway/fixtures/controller.js';
import { useCluster } from './fixtures/cluster-nodes.js';

const TICKETS_PER_NODE = 40;
const ATTEMPTS_PER_TICKET = 4;

describe('tickets across a cluster', () => {
  const fixture = useCluster(3);

  it('of many upgrades racing through three nodes for one ticket, exactly one wins', async () => {
    const nodes = fixture.gateways();
    const sessionId = await nodes[0]!.createSession();
    const tickets: string[] = [];
    for (const [n, gw] of nodes.entries()) {
      for (let i = 0; i < TICKETS_PER_NODE; i++)
        tickets.push(await register(gw, { sessionId, controllerId: `race-${n}-${i}` }));
    }
    const attempts = tickets.flatMap((ticket, t) =>
      Array.from({ length: ATTEMPTS_PER_TICKET }, (_, a) =>
        upgradeAnswer(nodes[(t + a) % nodes.length]!, { protocols: ticketProtocols(ticket) }).then(
          (answer) => ({ t, answer }),
        ),
      ),
    );
    const answers = await Promise.all(attempts);
    const wins = new Map<number, number>();
    for (const { t, answer } of answers) {
      if (answer.status === 101) wins.set(t, (wins.get(t) ?? 0) + 1);
      else assert.equal(answer.code, 'invalid_ticket', `attempt refused with ${answer.status}`);
    }
    assert.equal(wins.size, tickets.length, 'every ticket opened a socket');
    assert.deepEqual([...new Set(wins.values())], [1], 'no ticket opened two');
  });
});
