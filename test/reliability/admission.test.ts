/**
 * Admission under a burst: many sessions start at once on one local Chromium (the gateway in its own
 * process, so its memory is measured alone). Every call ends within its deadline with a result or a
 * `503 browser_busy` that carries `Retry-After`; at least `max_sessions` sessions are served; after the
 * burst the queue drains and new sessions are served. Prints served/busy counts and peak RSS of the
 * gateway and of Chromium. Bounded: 40 sessions at once, max_sessions 8. Full (SOAK=1): 300 sessions at
 * once with the default limits.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { chromiumPidsWith, chromiumTree } from '../engine/chromium-processes.js';
import { pssOf } from '../helpers/processes.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { callTool, type CallOutcome } from './fixtures/agent.js';
import { startChildGateway, type ChildGateway } from './fixtures/child-gateway.js';
import { percentile, SOAK, scaled } from './fixtures/scale.js';

const SESSIONS = scaled(40, 300);
const MAX_SESSIONS = SOAK ? DEFAULT_BROWSER_SETTINGS.maxSessions : 8;
const COMMAND_TIMEOUT_SECONDS = 30;
/** A call still unanswered this long after its deadline counts as hung. */
const GUARD_MS = (COMMAND_TIMEOUT_SECONDS + 5) * 1000;

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

describe(`admission: ${SESSIONS} sessions at once, max_sessions ${MAX_SESSIONS}`, () => {
  const home = makeHome();
  const marker = `--tabgate-test-marker=${randomUUID()}`;
  let site: TestSite;
  let gw: ChildGateway;
  let burst: CallOutcome[] = [];
  let served: string[] = [];
  const peak = { gateway: 0, chromium: 0, processes: 0 };

  const newSession = async () => {
    const created = await gw.request('POST', '/v1/sessions', {});
    return String((created.body as { session_id: string }).session_id);
  };
  const navigate = (sessionId: string) =>
    callTool({
      baseUrl: gw.url,
      key: gw.key,
      sessionId,
      tool: 'browser_navigate',
      args: { url: site.url('/page2') },
      guardMs: GUARD_MS,
    });

  before(async () => {
    site = await startTestSite();
    gw = await startChildGateway({
      home,
      backend: 'configured',
      config: {
        browser: {
          chromium_args: [marker],
          command_timeout: COMMAND_TIMEOUT_SECONDS,
          ...(SOAK ? {} : { max_sessions: MAX_SESSIONS }),
        },
      },
    });
    const sessions: string[] = [];
    for (let i = 0; i < SESSIONS; i++) sessions.push(await newSession());
    const sampler = setInterval(() => {
      peak.gateway = Math.max(peak.gateway, gw.rssBytes());
      const tree = chromiumTree(marker);
      peak.chromium = Math.max(
        peak.chromium,
        tree.reduce((sum, pid) => sum + pssOf(pid), 0),
      );
      peak.processes = Math.max(peak.processes, tree.length);
    }, 250);
    try {
      burst = await Promise.all(sessions.map(navigate));
    } finally {
      clearInterval(sampler);
    }
    served = sessions.filter((_id, i) => burst[i]?.outcome === 'ok');
    const busy = burst.filter((o) => o.outcome === 'browser_busy').length;
    const servedMs = burst
      .filter((o) => o.outcome === 'ok')
      .map((o) => o.ms)
      .sort((x, y) => x - y);
    console.log(
      `admission: ${SESSIONS} sessions at once, max_sessions ${MAX_SESSIONS}: ${served.length} served, ` +
        `${busy} browser_busy, ${burst.length - served.length - busy} other; served in p50 ` +
        `${(percentile(servedMs, 50) / 1000).toFixed(1)} s, max ${((servedMs.at(-1) ?? 0) / 1000).toFixed(1)} s; peak RSS gateway ` +
        `${mb(peak.gateway)}, Chromium ${mb(peak.chromium)} PSS over ${peak.processes} processes at most; others: ` +
        JSON.stringify(
          burst
            .filter((o) => o.outcome !== 'ok' && o.outcome !== 'browser_busy')
            .map((o) => `${o.status} ${o.outcome} ${o.ms.toFixed(0)} ms`),
        ),
    );
  });

  after(async () => {
    await gw.stop();
    await site.close();
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
    assert.deepEqual(chromiumPidsWith(marker), [], 'no Chromium left behind');
  });

  it('ends every call of the burst with a result or browser_busy, never a timeout or a 500', () => {
    const other = burst.filter((o) => o.outcome !== 'ok' && o.outcome !== 'browser_busy');
    assert.deepEqual(
      other.slice(0, 5).map((o) => `${o.status} ${o.outcome}`),
      [],
    );
  });

  it('serves at least max_sessions sessions', () => {
    assert.ok(served.length >= MAX_SESSIONS, `${served.length} served`);
  });

  it('answers browser_busy with 503 and a Retry-After', () => {
    const busy = burst.filter((o) => o.outcome === 'browser_busy');
    assert.ok(busy.length > 0, 'the burst is larger than the limit');
    for (const o of busy) {
      assert.equal(o.status, 503);
      assert.match(o.retryAfter ?? '', /^[1-9]\d*$/);
    }
  });

  it('serves new sessions once the served ones are closed', async () => {
    for (const id of served) assert.equal((await gw.request('DELETE', `/v1/sessions/${id}`)).status, 200);
    const fresh: string[] = [];
    for (let i = 0; i < Math.min(MAX_SESSIONS, 8); i++) fresh.push(await newSession());
    const outcomes = await Promise.all(fresh.map(navigate));
    assert.deepEqual(
      outcomes.map((o) => o.outcome),
      fresh.map(() => 'ok'),
    );
  });
});
