/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The node holding a controller's socket dies with kill -9: calls through the surviving nodes fail
 * closed (503 controller_unavailable) once its lease has expired, and a call already queued to it ends
 * the same way rather than waiting for its deadline. Nothing is sent anywhere else.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TestController, register, tabsAnswer } from '../gateway/fixtures/controller.js';
import { waitFor } from '../helpers/wait-for.js';
import { callTool, firstCall } from './broker-suite.js';
import { useCluster, type ClusterNode } from './fixtures/cluster-nodes.js';

const COMMAND = 'browser.controller.command';

describe('kill -9 of the node holding a controller', () => {
  const fixture = useCluster(3);

  it('makes every later call through the other nodes fail closed with 503, none waiting for its deadline', async () => {
    const [a, b, c] = fixture.cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
    const sessionId = await a.gw.createSession();
    const controller = await TestController.open(b.gw, await register(a.gw, { sessionId }));
    const answered = await firstCall(c.gw, sessionId, async () => {
      const command = await controller.next(COMMAND, 2000).catch(() => undefined);
      if (command) controller.result(command.params.command_id, true, tabsAnswer(''));
    });
    assert.equal(answered.status, 200);

    b.child.kill('SIGKILL');
    await b.exited;
    const killedAt = performance.now();
    const probes: Promise<{ status: number; code: string | undefined; after: number }>[] = [];
    let refusedAt: number | null = null;
    await waitFor(
      () => {
        const via = probes.length % 2 === 0 ? a.gw : c.gw;
        probes.push(
          callTool(via, sessionId).then((r) => {
            const after = performance.now() - killedAt;
            if (r.status === 503 && refusedAt === null) refusedAt = after;
            return { status: r.status, code: r.body?.error?.code as string | undefined, after };
          }),
        );
        return refusedAt !== null && probes.length > 40;
      },
      { what: 'calls to be refused after the kill', within: 8000, every: 50 },
    );
    const results = await Promise.all(probes);
    // The only outcomes a user may see: refused as unavailable. Never a 504 after waiting, never a 200.
    assert.deepEqual(
      [...new Set(results.map((r) => `${r.status} ${r.code}`))],
      ['503 controller_unavailable'],
    );
    const slowest = Math.max(...results.map((r) => r.after));
    console.log(
      `kill -9 owner: first 503 after ${Math.round(refusedAt ?? -1)} ms, slowest of ${results.length} probes answered after ${Math.round(slowest)} ms (lease TTL 3000 ms)`,
    );
  });
});
