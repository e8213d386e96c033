import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { createLogger } from '../../src/log/logger.js';
import { answeringMalformedLines, judgeLine } from '../../src/gateway/mcp/stdio-lines.js';

const answerOf = (line: string) => {
  const verdict = judgeLine(line);
  return verdict.pass ? 'passed' : verdict.answer;
};

describe('lines tabgate mcp cannot pass to the SDK', () => {
  it('passes every message of MCP on unchanged', () => {
    for (const line of [
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"browser_tabs","arguments":{}}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":5,"result":{}}',
    ])
      assert.equal(answerOf(line), 'passed', line);
  });

  it('answers a request that does not fit with its own id, as JSON-RPC says', () => {
    assert.deepEqual(answerOf('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":null}}'), {
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'Invalid params for tools/list: params._meta' },
    });
    assert.deepEqual(answerOf('{"jsonrpc":"2.0","id":"x","method":"ping","params":"p"}'), {
      jsonrpc: '2.0',
      id: 'x',
      error: { code: -32602, message: 'Invalid params for ping: params' },
    });
    // Not JSON-RPC 2.0, or an id JSON-RPC does not allow: an invalid request, with the id only if it is one.
    assert.deepEqual(answerOf('{"jsonrpc":"1.0","id":"a","method":"ping"}'), {
      jsonrpc: '2.0',
      id: 'a',
      error: { code: -32600, message: 'Invalid Request: jsonrpc' },
    });
    assert.equal((answerOf('{"jsonrpc":"2.0","id":1.5,"method":"ping"}') as { id: unknown }).id, null);
  });

  it('answers what is not JSON, a batch, or no message at all without an id', () => {
    for (const [line, code] of [
      ['{"jsonrpc":', -32700],
      ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600],
      ['{"x":1}', -32600],
      ['"text"', -32600],
    ] as const) {
      const answer = answerOf(line) as { id: unknown; error: { code: number } };
      assert.equal(answer.id, null, line);
      assert.equal(answer.error.code, code, line);
    }
  });

  it('answers no notification and no response, however malformed', () => {
    assert.equal(answerOf('{"jsonrpc":"2.0","method":"notifications/x","params":5}'), null);
    assert.equal(answerOf('{"jsonrpc":"2.0","id":3,"result":5}'), null);
  });

  it('passes whole lines across chunks, answers the others, and drops a line past the size limit', async () => {
    const logs: string[] = [];
    const stdout = new PassThrough();
    const filter = answeringMalformedLines(
      stdout,
      createLogger({ level: 'debug', write: (line) => logs.push(line) }),
    );
    const passed: Buffer[] = [];
    filter.on('data', (chunk: Buffer) => passed.push(chunk));
    const request = Buffer.from('{"jsonrpc":"2.0","id":"é","method":"ping"}\r\n');
    // Cut inside the two bytes of é: a line is read only once it is whole.
    const cut = request.indexOf(0xc3) + 1;
    filter.write(request.subarray(0, cut));
    filter.write(Buffer.concat([request.subarray(cut), Buffer.from('not json\n{"jsonrpc":"2.0","id":2,')]));
    filter.write(Buffer.alloc(STDIO_DEFAULT_MAX_BUFFER_SIZE, 0x20));
    filter.write('"method":"ping"}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    filter.end();
    await new Promise((resolve) => filter.on('end', resolve));
    assert.equal(
      Buffer.concat(passed).toString('utf8'),
      '{"jsonrpc":"2.0","id":"é","method":"ping"}\r\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n',
    );
    const answers = String(stdout.read())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: unknown; error: { message: string } });
    assert.deepEqual(
      answers.map((answer) => [answer.id, answer.error.message]),
      [
        [null, 'Parse error: not JSON'],
        [null, 'Parse error: a line longer than 10 MB'],
      ],
    );
    assert.equal(logs.filter((line) => /not passed on/.test(line)).length, 2);
  });
});
