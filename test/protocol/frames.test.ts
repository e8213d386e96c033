import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  encodeFrame,
  filterCapabilities,
  isSuccessfulResult,
  parseFrame,
  type CommandParams,
} from '../../src/protocol/index.js';
import { resultParamsSchema } from '../../src/protocol/wire/frames.js';

describe('frames', () => {
  it('ignores text that is not a JSON object with object params and a known method', () => {
    for (const text of [
      'not json',
      '[]',
      '"x"',
      'null',
      '{"method":"browser.controller.heartbeat"}',
      '{"method":"browser.controller.heartbeat","params":[]}',
      '{"method":"browser.controller.nope","params":{}}',
      '{"method":"toString","params":{}}',
      '{"method":"browser.controller.heartbeat","params":{"nonce":""}}',
      `{"method":"browser.controller.heartbeat","params":{"nonce":"${'x'.repeat(129)}"}}`,
    ]) {
      assert.equal(parseFrame(text), null, text);
    }
  });

  it('writes a command frame exactly as JSON of its fields in the protocol’s order, whatever text they hold', () => {
    const odd = 'a "quoted" \\ back\nslash\u2028 ünïcødé 🦊 \u0001 </script>';
    const commands: CommandParams[] = [
      {
        command_id: '0123456789abcdef0123456789abcdef',
        action: 'browser_type',
        arguments: { ref: 'e1', text: odd, submit: true, nested: { list: [1, null, 'x'] } },
        controller_id: odd,
        browser_profile_id: 'default',
        tool_call_id: odd,
        deadline_at: 1_764_470_000_123,
      },
      {
        command_id: 'ffffffffffffffffffffffffffffffff',
        action: 'browser_tabs',
        arguments: {},
        controller_id: 'c',
        browser_profile_id: odd,
        tool_call_id: null,
      },
    ];
    for (const params of commands) {
      const frame = { method: 'browser.controller.command', params } as const;
      const text = encodeFrame(frame);
      assert.equal(text, JSON.stringify(frame));
      assert.deepEqual(parseFrame(text), frame);
    }
  });

  it('counts a result as success only when ok is the literal true', () => {
    const parse = (ok: string) => {
      const frame = parseFrame(`{"method":"browser.controller.result","params":{"command_id":"a"${ok}}}`);
      assert.ok(frame && frame.method === 'browser.controller.result');
      return isSuccessfulResult(frame.params);
    };
    assert.equal(parse(',"ok":true'), true);
    assert.equal(parse(',"ok":"true"'), false);
    assert.equal(parse(',"ok":1'), false);
    assert.equal(parse(''), false);
  });

  it('reads a result frame exactly as its schema does, whatever its params hold', () => {
    // The result frame skips zod on the answer path; this holds it to the schema it skips.
    const key = fc.constantFrom('command_id', 'ok', 'result', 'error', '__proto__', 'constructor', 'extra');
    const params = fc.array(fc.tuple(key, fc.jsonValue()), { maxLength: 6 });
    fc.assert(
      fc.property(params, (entries) => {
        const text = `{"method":"browser.controller.result","params":{${entries
          .map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`)
          .join(',')}}}`;
        const schema = resultParamsSchema.safeParse((JSON.parse(text) as { params: unknown }).params);
        const frame = parseFrame(text);
        if (!schema.success) return assert.equal(frame, null, text);
        assert.deepStrictEqual(frame, { method: 'browser.controller.result', params: schema.data }, text);
        assert.equal(JSON.stringify(frame?.params), JSON.stringify(schema.data), text);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('capabilities', () => {
  it('intersects requests with the allowlist, dropping unknown names and non-strings', () => {
    assert.deepEqual(
      filterCapabilities(['browser_click', 'browser_cdp', 7, 'browser_click', 'controller.noop']),
      ['browser_click', 'controller.noop'],
    );
  });

  it('turns a non-list into nothing', () => {
    assert.deepEqual(filterCapabilities('browser_click'), []);
    assert.deepEqual(filterCapabilities({ 0: 'browser_click' }), []);
  });
});
