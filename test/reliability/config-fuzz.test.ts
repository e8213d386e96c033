/**
 * Random config.yaml files, drawn from the configuration's own schema (every key, values of the right
 * type and of the wrong one, keys that do not exist or reach a prototype) and then bent as people bend
 * YAML (a tab, a cut-off file, a duplicate key, an alias of itself). Each is loaded and, when it loads,
 * a gateway is started on it and closed: the outcome is a running gateway, a ConfigError, or one of
 * the typed errors `tabgate serve` prints as a sentence, never anything that would reach the owner as a
 * stack trace. Bounded: 100 files. Full (SOAK=1): 2,000.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { stringify } from 'yaml';
import { z } from 'zod';
import { ConfigError, configSchema, loadConfig } from '../../src/gateway/config/index.js';
import { startGateway } from '../../src/gateway/server.js';
import { isStartError } from '../../src/gateway/start-errors.js';
import { createLogger } from '../../src/log/logger.js';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { picker, scaled, SEED, seededRandom } from './fixtures/scale.js';

const FILES = scaled(100, 2_000);

const random = seededRandom(SEED);
const pick = picker(random);

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  const?: unknown;
}
const SCHEMA = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as Schema;

/** Keys that would reach for servers this suite does not run (the cluster suites start their own). */
const LEFT_OUT = new Set(['store.url', 'cluster.redis_url']);

const junk = () =>
  pick<unknown>([
    ...[null, true, 0, -1, 1.5, 1e308, 2 ** 31, '', 'x', '__proto__', '../..', '/etc/passwd'],
    ...['javascript:x', '*', 'http://x', [], {}, [1, 'a'], { a: 1 }],
  ]);

function draw(schema: Schema, at: string): unknown {
  if (random() < 0.25) return junk();
  if (schema.properties) {
    const tree: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(schema.properties)) {
      const where = at ? `${at}.${key}` : key;
      if (random() < 0.35 && !LEFT_OUT.has(where)) tree[key] = draw(child, where);
    }
    if (random() < 0.1) tree[pick(['extra', '__proto__', 'constructor', 'Enabled'])] = junk();
    return tree;
  }
  if (schema.enum) return pick(schema.enum);
  if (schema.anyOf) return draw(pick(schema.anyOf), at);
  if (schema.const !== undefined) return schema.const;
  switch (schema.type) {
    case 'boolean':
      return random() < 0.5;
    case 'integer':
      return pick([0, 1, 2, 5, 30, 100, 65_535, 70_000, -3]);
    case 'number':
      return pick([0, 0.5, 1, 30, 86_400, 1e9, -1]);
    case 'string':
      // Addresses that fail at once where they fail: a host name would wait for DNS.
      if (at === 'gateway.host') return pick(['127.0.0.1', '::1', '192.0.2.1', '', 'x y']);
      return pick(['', 'x', 'localhost', '127.0.0.1', '/tmp', 'all', 'none', 'example.com', '*.example.com']);
    case 'array':
      return Array.from({ length: Math.floor(random() * 3) }, () => draw(schema.items ?? {}, at));
  }
  return junk();
}

function bent(text: string): string {
  const roll = random();
  if (roll < 0.05) return text.replace(/\n {2}/, '\n\t');
  if (roll < 0.1) return `${text}\n${text.split('\n')[0] ?? ''}`;
  if (roll < 0.13) return pick(['a: &x [*x]\n', 'browser:\n  chromium_args: &a [--x, *a]\n']);
  if (roll < 0.16) return text.replace(/: /, ':');
  if (roll < 0.2) return text.slice(0, Math.floor(random() * text.length));
  return text;
}

it(`starts, or says why not, on ${FILES} random config.yaml files`, async () => {
  const wrong: string[] = [];
  const seen = new Map<string, number>();
  const log = createLogger({ level: 'debug', write: () => undefined });
  for (let i = 0; i < FILES; i++) {
    const home = makeHome();
    const text = bent(stringify(draw(SCHEMA, '')));
    fs.writeFileSync(path.join(home, 'config.yaml'), text);
    let outcome = 'started';
    try {
      const config = loadConfig({ home, env: {}, flags: { port: 0 }, log });
      const gateway = await startGateway({ config, env: {}, log });
      await gateway.close();
    } catch (error) {
      if (error instanceof ConfigError) outcome = 'config error';
      else if (isStartError(error)) outcome = 'start error';
      else {
        outcome = 'untyped';
        wrong.push(`${String(error).slice(0, 200)} ← ${JSON.stringify(text.slice(0, 300))}`);
      }
    } finally {
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
    }
    seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
  }
  console.log(`config fuzz: ${JSON.stringify(Object.fromEntries(seen))}`);
  assert.deepEqual(wrong.slice(0, 5), []);
  assert.ok((seen.get('started') ?? 0) > 0, 'some files were good enough to start on');
});
