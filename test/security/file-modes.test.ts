/**
 * Every file tabgate writes is its owner's alone (0600) and so is the home folder (0700), whatever the
 * umask, in a fresh home and in one an older version or the user left open. The gateway runs in this
 * process, so the umask set here is the one it creates its files under; the call it serves is audited
 * (`audit.all_backends`), so the journal and the audit rows (state.db, -wal, -shm) are written too.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/gateway/config/index.js';
import { startGateway } from '../../src/gateway/server.js';
import { createLogger } from '../../src/log/logger.js';
import { writeEnvFile } from '../../src/providers/env-file.js';
import { setConfigValue } from '../../src/providers/setup/config-writer.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { tempDir } from '../helpers/temp-dir.js';

const modeOf = (file: string): string => (fs.statSync(file).mode & 0o777).toString(8);

/** Every file and folder under `dir`, the folder itself included, with its mode. */
function modesUnder(dir: string): Map<string, string> {
  const modes = new Map([['.', modeOf(dir)]]);
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }))
    modes.set(entry, modeOf(path.join(dir, entry)));
  return modes;
}

/** Runs `fn` with the process umask set to `umask`. */
async function withUmask<T>(umask: number, fn: () => Promise<T>): Promise<T> {
  const previous = process.umask(umask);
  try {
    return await fn();
  } finally {
    process.umask(previous);
  }
}

/** Starts the gateway on `home`, serves one audited call, and returns the modes seen while it runs. */
async function serveOneCall(home: string): Promise<{ modes: Map<string, string>; logLines: string[] }> {
  const logLines: string[] = [];
  const log = createLogger({ level: 'debug', write: (line) => logLines.push(line) });
  const config = loadConfig({
    home,
    env: {},
    overrides: { gateway: { host: '127.0.0.1', port: 0 }, audit: { all_backends: true } },
  });
  const gateway = await startGateway({ config, env: {}, backend: new RecordingBackend(), log });
  try {
    const headers = { authorization: `Bearer ${gateway.apiKey.key}`, 'content-type': 'application/json' };
    const created = await fetch(`${gateway.url}/v1/sessions`, { method: 'POST', headers, body: '{}' });
    const { session_id } = (await created.json()) as { session_id: string };
    const call = await fetch(`${gateway.url}/v1/sessions/${session_id}/tools/browser_tabs`, {
      method: 'POST',
      headers,
      body: '{}',
    });
    assert.equal(call.status, 200);
    // Reading the log folds the journal into state.db first: the audit row is written by now.
    const audit = (await (await fetch(`${gateway.url}/v1/audit`, { headers })).json()) as {
      entries: unknown[];
    };
    assert.equal(audit.entries.length, 1);
    return { modes: modesUnder(home), logLines };
  } finally {
    await gateway.close();
  }
}

/** What the gateway writes in its home: the keys, the store with its WAL, the journal. */
function assertPrivate(modes: Map<string, string>, userFiles: readonly string[] = []): void {
  for (const name of ['api_key', 'operator_key', 'state.db', 'state.db-wal', 'state.db-shm', 'audit-journal'])
    assert.ok(modes.has(name), `${name} exists while the gateway runs`);
  assert.ok(
    [...modes.keys()].some((name) => /^audit-journal\/\d+-[0-9a-f]{16}\.jsonl$/.test(name)),
    'a journal file exists while the gateway runs',
  );
  for (const [name, mode] of modes) {
    if (userFiles.includes(name)) continue;
    const isDir = name === '.' || name === 'audit-journal';
    assert.equal(mode, isDir ? '700' : '600', `${name} is ${mode}`);
  }
}

describe('file modes', () => {
  let scratch: string;
  beforeEach(() => {
    scratch = tempDir('modes');
  });
  afterEach(() => fs.rmSync(scratch, { recursive: true, force: true, maxRetries: 10 }));

  for (const umask of [0o022, 0o000]) {
    const label = `umask ${umask.toString(8).padStart(3, '0')}`;

    it(`creates a fresh home 0700 and every file in it 0600 under ${label}`, async () => {
      const home = path.join(scratch, 'home');
      const { modes, logLines } = await withUmask(umask, () => serveOneCall(home));
      assertPrivate(modes);
      assert.deepEqual(
        logLines.filter((line) => line.includes('tightened permissions')),
        [],
        'nothing to tighten in a home it created',
      );
    });

    it(`tightens a 0755 home and an older 0644 state.db at start, saying so, under ${label}`, async () => {
      const home = path.join(scratch, 'home');
      await withUmask(umask, async () => {
        fs.mkdirSync(home);
        fs.chmodSync(home, 0o755);
        // The README has users write config.yaml first; it is theirs, and the 0700 folder now guards it.
        fs.writeFileSync(path.join(home, 'config.yaml'), 'browser:\n  headed: false\n');
        fs.chmodSync(path.join(home, 'config.yaml'), 0o644);
        // An older tabgate let SQLite create the store: 0644, and WAL files left by a crash.
        const old = new Database(path.join(home, 'state.db'));
        old.pragma('journal_mode = WAL');
        old.close();
        for (const name of ['state.db', 'state.db-wal', 'state.db-shm']) {
          fs.writeFileSync(path.join(home, name), '', { flag: 'a' });
          fs.chmodSync(path.join(home, name), 0o644);
        }
      });
      const { modes, logLines } = await withUmask(umask, () => serveOneCall(home));
      assertPrivate(modes, ['config.yaml']);
      assert.equal(modes.get('config.yaml'), '644');
      const tightened = logLines.filter((line) => line.includes('tightened permissions'));
      assert.ok(
        tightened.some(
          (line) => line.includes(`path=${home} `) && line.includes('mode_before=755 mode_now=700'),
        ),
        tightened.join('\n'),
      );
      assert.ok(
        tightened.some(
          (line) => line.includes(`path=${path.join(home, 'state.db')} `) && line.includes('mode_before=644'),
        ),
        tightened.join('\n'),
      );
    });
  }

  it('writes the provider .env and config.yaml 0600 under a permissive umask, even over 0644 files', async () => {
    const home = path.join(scratch, 'home');
    fs.mkdirSync(home, { mode: 0o700 });
    const env = path.join(home, '.env');
    const config = path.join(home, 'config.yaml');
    for (const file of [env, config]) fs.writeFileSync(file, '', { mode: 0o644 });
    await withUmask(0o000, async () => {
      writeEnvFile(env, { BROWSERBASE_API_KEY: 'bb-key' });
      setConfigValue(config, ['browser', 'cloud_provider'], 'browserbase');
    });
    assert.equal(modeOf(env), '600');
    assert.equal(modeOf(config), '600');
  });
});
