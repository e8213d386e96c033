/**
 * Every code of the error table is produced by some test. What this checks, honestly: that some test
 * file other than this one names the code as a quoted string — the suites name a code only to assert
 * that a response or a rejection carries it, so a code no test names is a code no test produces. It
 * cannot prove that the assertion runs; review does. It keeps working as codes are added: a new code
 * fails here until a test asserts it, or until it is listed below with the reason it is not yet.
 * The list must only shrink: a listed code that a test now names fails too, so it leaves the list.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ERROR_TABLE } from '../../src/protocol/index.js';

const testRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const self = fileURLToPath(import.meta.url);

/** Codes no test produces yet, each with why; to be emptied, never grown without a reason. */
const NOT_YET_PRODUCED: Record<string, string> = {};

function testSources(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) testSources(file, out);
    else if (/\.(ts|mjs)$/.test(entry.name) && file !== self) out.push(file);
  }
  return out;
}

describe('error table coverage', () => {
  const sources = testSources(testRoot).map((file) => fs.readFileSync(file, 'utf8'));
  const named = (code: string) =>
    sources.some(
      (text) => text.includes(`'${code}'`) || text.includes(`"${code}"`) || text.includes(`\`${code}\``),
    );

  it('has a test naming every error code, or a reason why not yet', () => {
    const untested = Object.keys(ERROR_TABLE).filter((code) => !named(code) && !(code in NOT_YET_PRODUCED));
    assert.deepEqual(untested, [], 'assert these codes in a test that produces them');
  });

  it('lists as not yet produced only codes that no test names', () => {
    const produced = Object.keys(NOT_YET_PRODUCED).filter((code) => named(code));
    assert.deepEqual(produced, [], 'these are tested now: take them off NOT_YET_PRODUCED');
    const unknown = Object.keys(NOT_YET_PRODUCED).filter((code) => !(code in ERROR_TABLE));
    assert.deepEqual(unknown, [], 'these are not in the error table any more');
  });
});
