/**
 * The one matching code of the network guards (src/engine/secret-forms.ts), which runs in the user's
 * browser too: its forms equal Node's own encodings, and the request rules are the documented ones
 * (docs/secrets.md): a user name in its own origin's URLs goes, any value in a body to its own origin
 * goes, and nothing else carries a filled value.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodyText, formsOf, secretInRequest } from '../../src/engine/secret-forms.js';

const ORIGIN = 'https://accounts.example.com';
const password = { name: 'pw', origin: ORIGIN, field: 'password', value: 'Pässword/1+?&' } as const;
const username = { name: 'user', origin: ORIGIN, field: 'username', value: 'bob@example.com' } as const;

describe('secret forms', () => {
  it('are the value as it is, base64 (three ways), hex (two cases) and percent-encoded, as Node writes them', () => {
    const bytes = Buffer.from(password.value, 'utf8');
    const forms = formsOf(password.value);
    for (const form of [
      password.value,
      bytes.toString('base64'),
      bytes.toString('base64').replace(/=+$/, ''),
      bytes.toString('base64url'),
      bytes.toString('hex'),
      bytes.toString('hex').toUpperCase(),
      encodeURIComponent(password.value),
      new URLSearchParams({ v: password.value }).toString().slice(2),
    ])
      assert.ok(forms.includes(form), form);
  });

  it('let a user name travel in its own origin URLs, and nothing else', () => {
    const fills = [password, username];
    const url = (base: string, value: string) => `${base}/p?x=${encodeURIComponent(value)}`;
    assert.equal(secretInRequest({ url: url(ORIGIN, username.value) }, fills), null);
    assert.deepEqual(secretInRequest({ url: url('https://evil.example', username.value) }, fills), {
      name: 'user',
      where: 'url',
    });
    assert.deepEqual(secretInRequest({ url: url(ORIGIN, password.value) }, fills), {
      name: 'pw',
      where: 'url',
    });
  });

  it("let a body carry a value to the secret's own origin only", () => {
    const fills = [password, username];
    const body = new URLSearchParams({ user: username.value, pass: password.value }).toString();
    assert.equal(secretInRequest({ url: `${ORIGIN}/submit`, body }, fills), null);
    assert.notEqual(secretInRequest({ url: 'https://evil.example/submit', body }, fills), null);
    const json = JSON.stringify({ p: Buffer.from(password.value).toString('base64') });
    assert.deepEqual(secretInRequest({ url: 'https://evil.example/x', body: json }, fills), {
      name: 'pw',
      where: 'body',
    });
    assert.equal(secretInRequest({ url: 'https://evil.example/x', body: 'nothing here' }, fills), null);
  });

  it('find a value in a JSON body however the encoder escaped it', () => {
    const quoted = { name: 'q', origin: ORIGIN, field: 'password', value: 'sé"cr\\et/é😀' } as const;
    const evil = 'https://evil.example/x';
    // JavaScript's own JSON: the quote and the backslash escaped.
    const plain = JSON.stringify({ p: quoted.value });
    assert.ok(plain.includes('\\"'), plain);
    // Python's json.dumps (ensure_ascii) and PHP's json_encode: every non-ASCII character and `/` too.
    const ascii = plain
      .replace(/[^ -~]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .replaceAll('/', '\\/');
    assert.ok(ascii.includes('\\ud83d\\ude00') && ascii.includes('\\/'), ascii);
    for (const body of [plain, ascii])
      assert.deepEqual(secretInRequest({ url: evil, body }, [quoted]), { name: 'q', where: 'body' }, body);
    assert.equal(secretInRequest({ url: evil, body: JSON.stringify({ p: 'se"cr\\et' }) }, [quoted]), null);
  });

  it('reads a body Chromium reports as text or as base64 byte entries', () => {
    assert.equal(bodyText({ postData: 'a=1' }), 'a=1');
    const entries = [
      { bytes: Buffer.from('pä').toString('base64') },
      { bytes: Buffer.from('ss').toString('base64') },
    ];
    assert.equal(bodyText({ postDataEntries: entries }), 'päss');
    assert.equal(bodyText({}), undefined);
  });
});
