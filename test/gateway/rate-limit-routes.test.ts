/**
 * A route's rate limit is declared on the route itself, so it follows the route wherever its path goes:
 * the limit is checked by what the route declares, not by what its path looks like, and every pairing
 * route a stranger can reach without a key declares one.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import type { Route, RouteContext } from '../../src/gateway/http/route-table.js';
import type { OperatorAuth } from '../../src/gateway/operator/index.js';
import type { PairingService } from '../../src/gateway/pairing/pairing-service.js';
import { pairingRoutes } from '../../src/gateway/pairing/pairing-routes.js';
import { RateLimits } from '../../src/gateway/security/rate-limits.js';
import { TabgateError } from '../../src/protocol/index.js';

const limits = () =>
  new RateLimits(
    { register: { capacity: 1, refillPerSecond: 0 }, pairing: { capacity: 1, refillPerSecond: 0 } },
    { now: () => 0 },
    { knownPairing: () => false, isOwner: () => false, credentialOf: () => null },
  );

const contextFrom = (address: string) =>
  ({
    req: { socket: { remoteAddress: address } } as IncomingMessage,
    params: {},
    caller: null,
  }) as RouteContext;

const route = (path: string, limit?: Route['limit']): Route => ({
  method: 'POST',
  path,
  auth: 'custom',
  ...(limit ? { limit } : {}),
  handle: () => ({ status: 200 }),
});

const codeOf = async (call: () => unknown) => {
  try {
    await call();
    return 'ok';
  } catch (error) {
    return error instanceof TabgateError ? error.code : String(error);
  }
};

describe('rate limits declared on the route', () => {
  it('limits a route by what it declares, whatever its path is renamed to', async () => {
    const [renamed, open] = limits().wrap([route('/somewhere/else/:id', 'pairing'), route('/open')]);
    const ctx = contextFrom('10.0.0.9');
    assert.equal(await codeOf(() => renamed?.handle(ctx)), 'ok');
    assert.equal(await codeOf(() => renamed?.handle(ctx)), 'rate_limited');
    for (let i = 0; i < 5; i++) assert.equal(await codeOf(() => open?.handle(ctx)), 'ok');
  });

  it('gives every pairing route a stranger can reach without a key a limit', () => {
    // Listing the routes calls neither dependency: the handlers are not run here.
    const routes = pairingRoutes({} as PairingService, {} as OperatorAuth);
    const keyless = routes.filter((r) => r.auth === 'custom');
    assert.ok(keyless.length >= 5, 'the keyless pairing routes are listed');
    for (const r of keyless) assert.equal(r.limit, 'pairing', `${r.method} ${r.path} declares its limit`);
  });
});
