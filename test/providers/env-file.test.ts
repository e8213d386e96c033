import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { envFilePath, loadHomeEnv, readEnvFile, writeEnvFile } from '../../src/providers/index.js';
import { tempDir } from '../helpers/temp-dir.js';

let home: string;
beforeEach(() => {
  home = tempDir('envfile');
});
afterEach(() => rmSync(home, { recursive: true, force: true, maxRetries: 10 }));

describe('the home .env file', () => {
  it('is created with mode 0600', () => {
    writeEnvFile(envFilePath(home), { A: '1' });
    assert.equal(statSync(envFilePath(home)).mode & 0o777, 0o600);
  });

  it('round-trips values with quotes, backslashes, dollars, spaces and newlines', () => {
    const tricky = 'a "quoted" \\ $HOME #not-a-comment\nline2\t=x';
    writeEnvFile(envFilePath(home), { TRICKY: tricky, EMPTY: '' });
    assert.deepEqual(readEnvFile(envFilePath(home)), { TRICKY: tricky, EMPTY: '' });
  });

  it('replaces existing keys in place and keeps other lines and comments', () => {
    const file = envFilePath(home);
    writeFileSync(file, '# my notes\nOTHER=keep me\nexport BROWSERBASE_API_KEY=old\n', { mode: 0o644 });
    writeEnvFile(file, { BROWSERBASE_API_KEY: 'new', BROWSERBASE_PROJECT_ID: 'p' });
    assert.equal(
      readFileSync(file, 'utf8'),
      '# my notes\nOTHER=keep me\nBROWSERBASE_API_KEY="new"\nBROWSERBASE_PROJECT_ID="p"\n',
    );
    assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  it('refuses a key that is not a variable name and changes nothing', () => {
    writeEnvFile(envFilePath(home), { A: '1' });
    assert.throws(() => writeEnvFile(envFilePath(home), { 'BAD KEY': 'x', A: '2' }), {
      code: 'invalid_request',
    });
    assert.deepEqual(readEnvFile(envFilePath(home)), { A: '1' });
  });

  it('loads into an environment without overriding variables already set', () => {
    writeFileSync(envFilePath(home), "FROM_FILE='file value'\nALREADY=file\nBLANK=file\n");
    const env: Record<string, string | undefined> = { ALREADY: 'process', BLANK: '' };
    const loaded = loadHomeEnv(home, env);
    assert.deepEqual(env, { ALREADY: 'process', BLANK: 'file', FROM_FILE: 'file value' });
    assert.deepEqual(loaded.sort(), ['BLANK', 'FROM_FILE']);
  });

  it('loads nothing when the file does not exist', () => {
    assert.deepEqual(loadHomeEnv(home, {}), []);
  });
});
