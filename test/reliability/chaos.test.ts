/**
 * Chaos: many controllers, many concurrent tool calls, sockets dropped at random mid-command and
 * reconnected. Every call must end exactly once, with its own result or a typed error, never hang,
 * never get another call's result, and never fall back to another backend. The gateway runs in its own
 * process (so the hundreds of clients here do not share its event loop) with `audit.all_backends` on:
 * any call a backend served would be in the audit log with that backend's name.
 * Bounded: 10 controllers, 400 calls. Full (SOAK=1): 100 controllers, 10,000 calls.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { AuditEntry } from '../../src/gateway/audit/index.js';
import type { CommandParams } from '../../src/protocol/index.js';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { callTool, type CallOutcome } from './fixtures/agent.js';
import { startChildGateway, type ChildGateway } from './fixtures/child-gateway.js';
import { echoOf, ResilientController } from './fixtures/resilient-controller.js';
import { scaled, SEED, seededRandom } from './fixtures/scale.js';

const CONTROLLERS = scaled(10, 100);
const CALLS = scaled(400, 10_000);
const WORKERS_PER_SESSION = 2;
const UNAVAILABLE_BACKOFF_MS = 100;
const COMMAND_TIMEOUT_S = 2;
/**
 * A call still open this long after its deadline counts as hung. Generous, because a busy two-core
 * machine can stall this process's event loop for seconds; a real hang never ends at all.
 */
const GUARD_MS = COMMAND_TIMEOUT_S * 1000 + 20_000;
/** The call's id from its URL (`…/<session>/<seq>` ↔ `call-<seq>`). */
const toolCallIdOf = (url: string) => `call-${url.split('/').at(-1)}`;
const TYPED_ERRORS = new Set(['controller_timeout', 'controller_unavailable', 'controller_cancelled']);

describe(`chaos: ${CONTROLLERS} controllers, ${CALLS} calls, sockets dropped mid-command`, () => {
  const random = seededRandom(SEED);
  const home = makeHome();
  let gateway: ChildGateway;
  const audited: AuditEntry[] = [];
  const controllers: ResilientController[] = [];
  const sessions: string[] = [];
  /** tool_call_id → how many command frames carried it, over every controller. */
  const framesPerCall = new Map<string, number>();
  const outcomes: { sessionIndex: number; url: string; outcome: CallOutcome }[] = [];
  /** Calls whose command arrived on a socket that was then dropped, answered over the next socket. */
  const answeredAfterReconnect = new Set<string>();

  /** Answers most commands; drops the socket under some (answering late on the new socket or never). */
  const policy = (command: CommandParams, self: ResilientController) => {
    const id = command.tool_call_id ?? '';
    framesPerCall.set(id, (framesPerCall.get(id) ?? 0) + 1);
    const roll = random();
    if (roll < 0.05) {
      self.drop();
      if (random() < 0.5) {
        const waitForReconnect = () => {
          if (!self.connected) return void setTimeout(waitForReconnect, 20).unref();
          answeredAfterReconnect.add(id);
          self.answer(command);
        };
        setTimeout(waitForReconnect, 20).unref();
      }
    } else if (roll < 0.06) {
      // Silent: this command runs into its deadline.
    } else {
      setTimeout(() => self.answer(command), Math.floor(random() * 10)).unref();
    }
  };

  before(async () => {
    gateway = await startChildGateway({
      home,
      config: {
        browser: { extension_control: { enabled: true, command_timeout: COMMAND_TIMEOUT_S } },
        audit: { all_backends: true },
        // The agents' own HTTP client (undici) reuses an idle connection until 1 s before the gateway's
        // keep-alive close; on a host overloaded by the soak's other files its event loop lags past that
        // margin and it writes to a socket the gateway just closed: a transport error the request never
        // reached the gateway with (19–121 calls of 10,000 in the soak). That race is the client's and
        // not what this test is about, so the idle close is moved out of its reach.
        gateway: { limits: { keep_alive_timeout: 30 } },
      },
    });
    const key = gateway.key;
    for (let i = 0; i < CONTROLLERS; i++) {
      const created = await fetch(`${gateway.url}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const sessionId = ((await created.json()) as { session_id: string }).session_id;
      sessions.push(sessionId);
      controllers.push(
        new ResilientController({
          baseUrl: gateway.url,
          key,
          sessionId,
          controllerId: `ctrl-${i}`,
          onCommand: policy,
        }),
      );
    }
    await Promise.all(controllers.map((c) => c.start()));

    let next = 0;
    const worker = async (sessionIndex: number) => {
      while (next < CALLS) {
        const seq = next++;
        const url = `https://chaos.example/${sessionIndex}/${seq}`;
        const outcome = await callTool({
          baseUrl: gateway.url,
          key,
          sessionId: sessions[sessionIndex] as string,
          tool: 'browser_navigate',
          args: { url },
          toolCallId: `call-${seq}`,
          guardMs: GUARD_MS,
        });
        outcomes.push({ sessionIndex, url, outcome });
        // As an agent told "ask the user to reconnect" would, it waits before trying again.
        if (outcome.outcome === 'controller_unavailable') await sleep(UNAVAILABLE_BACKOFF_MS);
      }
    };
    const workers: Promise<void>[] = [];
    for (let s = 0; s < CONTROLLERS; s++)
      for (let w = 0; w < WORKERS_PER_SESSION; w++) workers.push(worker(s));
    await Promise.all(workers);
    // Through the API, which folds the gateway's journal first: every row answered so far is there.
    for (let after = 0; ;) {
      const page = (await gateway.request('GET', `/v1/audit?after=${after}&limit=1000`)).body as {
        entries: AuditEntry[];
      };
      if (page.entries.length === 0) break;
      audited.push(...page.entries);
      after = page.entries.at(-1)?.id ?? after;
    }
    const tally: Record<string, number> = {};
    for (const { outcome } of outcomes) tally[outcome.outcome] = (tally[outcome.outcome] ?? 0) + 1;
    const reconnects = controllers.reduce((n, c) => n + c.connects - 1, 0);
    const slowest = Math.max(...outcomes.map((o) => o.outcome.ms));
    console.log(
      `chaos: ${outcomes.length} calls, reconnects ${reconnects}, slowest call ${Math.round(slowest)} ms, outcomes ${JSON.stringify(tally)}`,
    );
  });

  after(async () => {
    await Promise.all(controllers.map((c) => c.stop()));
    await gateway.stop();
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
  });

  it('ends every call exactly once, with a result or a typed error, and none hangs', () => {
    assert.equal(outcomes.length, CALLS);
    const untyped = outcomes.filter(
      ({ outcome }) => outcome.outcome !== 'ok' && !TYPED_ERRORS.has(outcome.outcome),
    );
    assert.deepEqual(
      untyped.map((o) => o.outcome.outcome),
      [],
    );
  });

  it('delivers no result to the wrong call', () => {
    let ok = 0;
    for (const { sessionIndex, url, outcome } of outcomes) {
      if (outcome.outcome !== 'ok') continue;
      ok++;
      const echo = echoOf(outcome.result);
      assert.equal(echo.echo_url, url);
      assert.equal(echo.controller_id, `ctrl-${sessionIndex}`);
    }
    assert.ok(ok >= CALLS / 10, `calls succeed between the drops (${ok} of ${CALLS})`);
  });

  it('sends each call to a controller at most once, and never the same command twice', () => {
    assert.deepEqual(
      [...framesPerCall.values()].filter((n) => n > 1),
      [],
    );
    assert.equal(
      controllers.reduce((n, c) => n + c.duplicates, 0),
      0,
    );
  });

  it('never falls back to another backend', () => {
    assert.equal(audited.length, CALLS, 'every call is in the audit log');
    assert.deepEqual(audited.filter((entry) => entry.backend !== 'controller').slice(0, 5), []);
  });

  it('completes a command started on a dropped socket when its result comes over the new one', () => {
    assert.ok(answeredAfterReconnect.size > 0, 'some sockets were dropped mid-command');
    const completed = outcomes.filter(
      (o) => o.outcome.outcome === 'ok' && answeredAfterReconnect.has(toolCallIdOf(o.url)),
    );
    assert.ok(completed.length > 0, `of ${answeredAfterReconnect.size} late answers none completed its call`);
  });
});
