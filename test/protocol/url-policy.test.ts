import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkNavigationUrl } from '../../src/protocol/index.js';

const kind = (url: string) => checkNavigationUrl(url).kind;
const isPrivate = (url: string) => {
  const verdict = checkNavigationUrl(url);
  assert.equal(verdict.kind, 'ok', url);
  return verdict.kind === 'ok' && verdict.private;
};

describe('navigation URL policy', () => {
  it('allows http(s) and about:blank only', () => {
    assert.equal(kind('https://example.com/a'), 'ok');
    assert.equal(kind('about:blank'), 'ok');
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,x',
      'chrome://settings',
      'ftp://x.org',
      'nope',
    ]) {
      assert.equal(kind(url), 'invalid', url);
    }
  });

  it('always refuses cloud metadata endpoints, in any spelling', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://0xa9.254.169.254/',
      'http://2852039166/',
    ]) {
      assert.equal(kind(url), 'metadata', url);
    }
  });

  it('marks private and internal addresses', () => {
    for (const url of [
      'http://10.0.0.9/',
      'http://127.0.0.1:8642/',
      'http://[::1]/',
      'http://printer.local/',
      'http://db.internal/',
      'http://192.168.1.1',
      'http://intranet/',
    ]) {
      assert.equal(isPrivate(url), true, url);
    }
    for (const url of ['https://example.com/', 'http://8.8.8.8/']) assert.equal(isPrivate(url), false, url);
  });
});
