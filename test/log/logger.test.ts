import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../src/log/logger.js';

const here = path.dirname(fileURLToPath(import.meta.url));

test('the info lines of one turn reach the output in one write, in order, once the turn ends', async () => {
  const writes: string[] = [];
  const log = createLogger({ output: (text) => writes.push(text) });
  log.info('request', { path: '/a' });
  log.info('request', { path: '/b' });
  assert.deepEqual(writes, []);
  await nextTurn();
  assert.equal(writes.length, 1);
  assert.match(writes[0] ?? '', /^\S+ info {2}request path=\/a\n\S+ info {2}request path=\/b\n$/);
});

test('a warning is written at once, after the lines that waited', () => {
  const writes: string[] = [];
  const log = createLogger({ output: (text) => writes.push(text) });
  log.info('request', { path: '/a' });
  log.warn('controller send failed', { reason: 'closed' });
  assert.equal(writes.length, 1);
  assert.match(writes[0] ?? '', /request path=\/a\n.* warn {2}controller send failed reason=closed\n$/);
});

for (const ending of ['exit', 'throw'] as const) {
  test(`a line logged in the turn the process ends (${ending}) is still written`, () => {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'fixtures', 'log-then-exit.ts'), ending],
      { encoding: 'utf8' },
    );
    assert.match(child.stderr, /info {2}request method=POST path=\/v1\/last status=200\n/);
    assert.equal(child.status, ending === 'exit' ? 0 : 1);
  });
}

test('a field prints bare when it is a word, a number, a boolean or null, quoted otherwise, and undefined not at all', () => {
  const lines: string[] = [];
  const log = createLogger({ write: (line) => lines.push(line) });
  log.info('request', {
    path: '/v1/x',
    status: 200,
    ms: -0.5,
    ok: true,
    none: null,
    skipped: undefined,
    why: 'a b',
  });
  assert.match(
    lines[0] ?? '',
    / info {2}request path=\/v1\/x status=200 ms=-0.5 ok=true none=null why="a b"$/,
  );
});
