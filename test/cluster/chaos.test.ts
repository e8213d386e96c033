/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * Faults under load, through three gateway processes on one Redis. Bounded here; the full sizes of the
 * issue (10,000 commands) run with `npm run chaos:cluster` (CHAOS=1, without the suite's time limit).
 *
 * - Every inbox reader's Redis connection killed over and over while commands flow: no result lost,
 *   no command delivered twice, every caller answered once with its own controller's result.
 * - The node holding a controller stops (SIGTERM): calls through the others are refused at once as
 *   unavailable; none reaches another browser, none waits for its deadline.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { register, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { answerFirstCommand, callTool, firstCall } from './broker-suite.js';
import { autoAnswer } from './fixtures/call-load.js';
import { useCluster, type ClusterNode } from './fixtures/cluster-nodes.js';
import { ticketRace } from './fixtures/ticket-race.js';

const CHAOS = process.env.CHAOS === '1';
const COMMANDS = CHAOS ? 10_000 : 300;
const SESSIONS = 6;
const CONCURRENCY = 12;
const KILL_EVERY_MS = 150;

describe('cluster chaos', () => {
  const fixture = useCluster(3);

  it(`loses no result and sends no command twice while inbox readers are killed (${COMMANDS} commands)`, async () => {
    const nodes = fixture.gateways() as [TestGateway, TestGateway, TestGateway];
    const sessions: { id: string; controller: TestController; seen: string[]; toolCalls: string[] }[] = [];
    for (let s = 0; s < SESSIONS; s++) {
      const id = await nodes[0].createSession();
      // Sockets on B and C; calls round robin over all three: two in three cross nodes.
      const controller = await TestController.open(
        nodes[1 + (s % 2)]!,
        await register(nodes[s % 3]!, { sessionId: id }),
      );
      const seen: string[] = [];
      const toolCalls: string[] = [];
      await firstCall(nodes[(s + 1) % 3]!, id, answerFirstCommand(controller));
      autoAnswer(controller.ws, seen, toolCalls);
      sessions.push({ id, controller, seen, toolCalls });
    }

    let kills = 0;
    const killer = setInterval(() => {
      const readers = fixture.redis
        .cli('CLIENT', 'LIST')
        .split('\n')
        .filter((line) => line.includes('name=tg-inbox-'))
        .map((line) => /\bid=(\d+)/.exec(line)?.[1])
        .filter((id): id is string => id !== undefined);
      for (const id of readers) fixture.redis.cli('CLIENT', 'KILL', 'ID', id);
      kills += readers.length;
    }, KILL_EVERY_MS);

    const outcomes = new Map<string, number>();
    /** Calls whose HTTP exchange failed (no status): which, through which node, after how long. */
    const transport: { toolCallId: string; node: number; ms: number; cause: string }[] = [];
    let next = 0;
    const worker = async () => {
      while (next < COMMANDS) {
        const n = next++;
        const session = sessions[n % SESSIONS]!;
        const toolCallId = `chaos-${n}`;
        const started = performance.now();
        const result = await nodes[n % 3]!.request('POST', `/v1/sessions/${session.id}/tools/browser_tabs`, {
          body: {},
          headers: { 'x-tool-call-id': toolCallId },
        }).catch((error: unknown) => {
          const cause = String((error as Error).cause ?? error);
          transport.push({ toolCallId, node: n % 3, ms: Math.round(performance.now() - started), cause });
          return { status: 0, body: { error: { code: `transport: ${cause}` } } };
        });
        const key =
          result.status === 200 ? `200 ${session.id}` : `${result.status} ${result.body?.error?.code}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        if (result.status === 200) {
          const echoed = String(result.body?.result?.tabs?.[0]?.title ?? JSON.stringify(result.body));
          assert.ok(session.seen.includes(echoed), `a result from another controller: ${echoed}`);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    } finally {
      clearInterval(killer);
    }
    const sent = sessions.flatMap((s) => s.seen);
    console.log(`reader kills: ${kills} connections killed during ${COMMANDS} commands`);
    // A failed HTTP exchange is named with whether its command reached a controller: a reset of a
    // kept-alive connection before the request was read leaves nothing sent; anything else is a lost result.
    const ran = new Set(sessions.flatMap((s) => s.toolCalls));
    for (const t of transport)
      console.log(`transport failure: ${JSON.stringify({ ...t, ran: ran.has(t.toolCallId) })}`);
    assert.ok(kills > 0, 'no reader was killed');
    // Every call answered with its own result: nothing lost, nothing refused, nothing timed out.
    assert.deepEqual(
      [...outcomes.keys()].filter((key) => !key.startsWith('200 ')),
      [],
      JSON.stringify([...outcomes]),
    );
    assert.equal(sent.length, COMMANDS, 'every command reached a controller once');
    assert.equal(new Set(sent).size, sent.length, 'no command reached a controller twice');
    for (const session of sessions) await session.controller.close();
  });

  it('refuses calls at once, and only as unavailable, when the node holding the socket stops (SIGTERM)', async () => {
    const [a, b, c] = fixture.cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
    const sessionId = await a.gw.createSession();
    const controller = await TestController.open(b.gw, await register(a.gw, { sessionId }));
    const seen: string[] = [];
    await firstCall(c.gw, sessionId, answerFirstCommand(controller));
    autoAnswer(controller.ws, seen);
    b.child.kill('SIGTERM');
    await b.exited;
    const probes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => callTool(i % 2 ? a.gw : c.gw, sessionId)),
    );
    assert.deepEqual(
      [...new Set(probes.map((r) => `${r.status} ${r.body?.error?.code}`))],
      ['503 controller_unavailable'],
    );
    assert.deepEqual(seen, [], 'nothing was sent after the stop');
    await waitFor(() => controller.ws.readyState === controller.ws.CLOSED, { what: 'the socket to close' });
  });
});

const TICKETS = Number(process.env.CHAOS_TICKETS ?? 10_000);
const ATTEMPTS_PER_TICKET = 4;

describe(
  'cluster chaos: the full ticket race',
  { skip: !CHAOS && 'full size: npm run chaos:cluster' },
  () => {
    const fixture = useCluster(3);

    it(`${ATTEMPTS_PER_TICKET * TICKETS} upgrades race for ${TICKETS} tickets over three nodes, through a kill -9 and a Redis pause`, async () => {
      const nodes = fixture.cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
      const victim = nodes[2];
      const sessionId = await nodes[0].gw.createSession();
      let killedAt = -1;
      let pausedAt = -1;
      const result = await ticketRace({
        nodes: nodes.map((node) => node.gw),
        sessionId,
        tickets: TICKETS,
        attemptsPerTicket: ATTEMPTS_PER_TICKET,
        alive: (n) => n !== 2 || killedAt < 0,
        onIssued(issued) {
          if (killedAt < 0 && issued >= TICKETS * 0.4) {
            killedAt = issued;
            victim.child.kill('SIGKILL');
          }
          if (pausedAt < 0 && issued >= TICKETS * 0.7) {
            pausedAt = issued;
            assert.equal(fixture.redis.cli('CLIENT', 'PAUSE', '500'), 'OK');
          }
        },
      });
      await victim.exited;
      const accepted = result.wins.filter((w) => w === 1).length;
      const twice = result.wins.filter((w) => w > 1).length;
      const unanswered = result.wins.filter((w, t) => w === 0 && !result.lost[t]).length;
      const lostNotAccepted = result.wins.filter((w, t) => w === 0 && result.lost[t]).length;
      console.log(
        `ticket race: ${JSON.stringify({
          tickets: result.wins.length,
          attempts: result.wins.length * ATTEMPTS_PER_TICKET,
          accepted,
          acceptedTwice: twice,
          lostWithTheNodeAndNotAccepted: lostNotAccepted,
          refused: Object.fromEntries(result.refused),
          registerRetries: Object.fromEntries(result.registerRetries),
          killedAtTicket: killedAt,
          pausedAtTicket: pausedAt,
          ms: result.ms,
        })}`,
      );
      assert.equal(result.wins.length, TICKETS, 'every ticket was issued');
      assert.ok(killedAt > 0 && pausedAt > 0, 'both faults happened mid-run');
      // The rule: no ticket ever opens two sockets. A ticket whose attempt died with the node (or met a
      // 503) may have been spent there, so it opens one socket elsewhere or none; every other ticket one.
      assert.equal(twice, 0, 'no ticket opened two sockets');
      assert.equal(unanswered, 0, 'every ticket whose attempts were all answered opened one socket');
      // Refused only because the ticket was spent, or because the node died or Redis was paused.
      for (const key of result.refused.keys())
        assert.ok(/ invalid_ticket$|^transport$|^503 /.test(key), `an attempt refused as ${key}`);
    });
  },
);
