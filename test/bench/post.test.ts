/**
 * The benches' POST survives a server closing a kept-alive socket it holds idle just as a request is
 * written on it (one retry, on another socket), and retries nothing else: a fresh socket's failure, or
 * one after the answer began, fails the call. A real server on a real socket: it answers the first
 * request of each connection and closes the connection when a later one arrives on it, which is what
 * the client sees when the server's idle close crosses its request.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { closePosts, post } from '../../bench/post.js';

const OK = 'HTTP/1.1 200 OK\r\nconnection: keep-alive\r\ncontent-length: 2\r\n\r\n{}';

type Behaviour = 'answer' | 'close' | 'close-midway';

/**
 * A server whose answer to a request depends on the request's place on its connection: `first` for the
 * first one, `later` for the others.
 */
async function startServer(first: Behaviour, later: Behaviour) {
  const seen = { connections: 0, requests: 0 };
  const server = net.createServer((socket) => {
    seen.connections++;
    let onThisSocket = 0;
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      // The request's head, then its body of content-length bytes.
      for (;;) {
        const headEnd = buffered.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const length = Number(/content-length: *(\d+)/i.exec(buffered.slice(0, headEnd))?.[1] ?? 0);
        if (buffered.length < headEnd + 4 + length) return;
        buffered = buffered.slice(headEnd + 4 + length);
        seen.requests++;
        const behaviour = onThisSocket++ === 0 ? first : later;
        if (behaviour === 'answer') socket.write(OK);
        else if (behaviour === 'close') socket.destroy();
        else socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("the benches' POST", () => {
  const servers: { close(): Promise<void> }[] = [];
  after(async () => {
    closePosts();
    await Promise.all(servers.map((server) => server.close()));
  });
  const serve = async (first: Behaviour, later: Behaviour) => {
    const server = await startServer(first, later);
    servers.push(server);
    return server;
  };

  it('sends a request again, once, when the server closed the kept-alive socket it was written on', async () => {
    const server = await serve('answer', 'close');
    assert.equal(await post(server.url, {}), 200);
    assert.equal(await post(server.url, {}), 200);
    assert.deepEqual(server.seen, { connections: 2, requests: 3 });
  });

  it('does not send it again when a fresh socket fails', async () => {
    const server = await serve('close', 'close');
    await assert.rejects(post(server.url, {}), { code: 'ECONNRESET' });
    assert.deepEqual(server.seen, { connections: 1, requests: 1 });
  });

  it('does not send it again once part of the answer arrived', async () => {
    const server = await serve('answer', 'close-midway');
    assert.equal(await post(server.url, {}), 200);
    await assert.rejects(post(server.url, {}));
    assert.deepEqual(server.seen, { connections: 1, requests: 2 });
  });
});
