/**
 * Nodes sharing one SQLite file (no PostgreSQL, whose change feed tells every node) hold pairings in
 * memory too: a pairing made through one node must be usable through the other, and one revoked
 * through the other must stop working through the first, without any restart. They learn of each
 * other's writes through Redis.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXTENSION_ORIGIN, REGISTER_PATH } from '../../src/protocol/index.js';
import { registrationBody } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { asOperator, pairedToken } from '../extension/pairing-helpers.js';
import { waitFor } from '../helpers/wait-for.js';
import { useCluster } from './fixtures/cluster-nodes.js';

describe('pairings on two nodes sharing one SQLite file', () => {
  const fixture = useCluster(2);

  it('are usable through the other node at once, and revoked there too', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    const { token, grantId } = await pairedToken(a);
    const sessionId = await a.createSession();
    const registerOn = (gw: TestGateway) =>
      gw.request('POST', REGISTER_PATH, {
        body: registrationBody({ sessionId }),
        headers: { authorization: `Bearer ${token}`, origin: EXTENSION_ORIGIN },
      });
    // The announcement takes a Redis round trip: B knows the pairing within moments, not at a restart.
    const onB = await waitFor(
      async () => {
        const answer = await registerOn(b);
        return answer.status === 201 ? answer : null;
      },
      { what: 'B to accept the pairing made through A', within: 5000 },
    );
    assert.equal(onB.status, 201);

    const revoked = await b.request('DELETE', `/v1/pairings/${grantId}`, { headers: asOperator(b) });
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    const refused = await waitFor(
      async () => {
        const answer = await registerOn(a);
        return answer.status === 201 ? null : answer;
      },
      { what: 'A to refuse the pairing revoked through B', within: 5000 },
    );
    assert.equal(refused.status, 401, JSON.stringify(refused.body));
  });
});
