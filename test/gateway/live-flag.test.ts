/**
 * The live extension-control flag on real files: an edit of config.yaml is seen by the next request,
 * however the editor saves, and where the folder cannot be watched every read looks at the file.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { LiveExtensionControlFlag } from '../../src/gateway/config/index.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { makeHome } from './fixtures/gateway.js';

const ON = 'browser:\n  extension_control:\n    enabled: true\n';
const OFF = 'browser:\n  extension_control:\n    enabled: false\n';

/**
 * What separates an edit from the next request in the gateway: a request sent after the edit is read
 * from its socket in a later poll of the event loop, which handles the watch's event first. Two
 * immediates span one such poll.
 */
const nextTurn = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

describe('live extension-control flag', () => {
  const homes: string[] = [];
  const flags: LiveExtensionControlFlag[] = [];
  after(() => {
    for (const flag of flags) flag.close();
    for (const dir of homes) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  });

  /** A flag on `<home>/<folder>/config.yaml`; `folder` need not exist. */
  function setUp(initial: string | null, log = silentLogger, folder = '.') {
    const home = makeHome();
    homes.push(home);
    const file = path.join(home, folder, 'config.yaml');
    if (initial !== null) fs.writeFileSync(file, initial);
    const flag = new LiveExtensionControlFlag(file, initial === ON, log);
    flags.push(flag);
    return { file, flag };
  }

  it('turns off at the next request when config.yaml is rewritten in place', async () => {
    const { file, flag } = setUp(ON);
    assert.equal(flag.enabled(), true);
    fs.writeFileSync(file, OFF);
    await nextTurn();
    assert.equal(flag.enabled(), false);
  });

  it('follows an editor that saves by writing a new file and renaming it over config.yaml', async () => {
    const { file, flag } = setUp(OFF);
    assert.equal(flag.enabled(), false);
    fs.writeFileSync(file + '.swp', ON);
    fs.renameSync(file + '.swp', file);
    await nextTurn();
    assert.equal(flag.enabled(), true);
    fs.rmSync(file);
    await nextTurn();
    assert.equal(flag.enabled(), false, 'a deleted config.yaml means the default: off');
  });

  it('sees config.yaml created after the start', async () => {
    const { file, flag } = setUp(null);
    assert.equal(flag.enabled(), false);
    fs.writeFileSync(file, ON);
    await nextTurn();
    assert.equal(flag.enabled(), true);
  });

  it('is off while config.yaml is broken, and says why in the log', async () => {
    const lines: string[] = [];
    const { file, flag } = setUp(ON, createLogger({ write: (line) => lines.push(line) }));
    fs.writeFileSync(file, 'browser: [unclosed\n');
    await nextTurn();
    assert.equal(flag.enabled(), false);
    assert.ok(lines.some((line) => line.includes('config.yaml unreadable')));
  });

  it('reads the file on every call when its folder cannot be watched', () => {
    const { file, flag } = setUp(null, silentLogger, 'not-yet');
    assert.equal(flag.enabled(), false);
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, ON);
    // No turn of the event loop: without a watch there is nothing to wait for.
    assert.equal(flag.enabled(), true);
  });
});
