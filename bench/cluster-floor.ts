/**
 * The floor for `npm run bench:cluster`: a bare node:http server that relays each request as one
 * WebSocket message to a connected client and answers with its reply — the least any gateway must do.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

let client: WebSocket | null = null;
const waiting = new Map<number, http.ServerResponse>();
let next = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = next++;
    waiting.set(id, res);
    client?.send(JSON.stringify({ id }));
  });
});
const wss = new WebSocketServer({ server });
wss.on('connection', (ws) => {
  client = ws;
  ws.on('message', (data) => {
    const { id } = JSON.parse((data as Buffer).toString('utf8')) as { id: number };
    const res = waiting.get(id);
    waiting.delete(id);
    res?.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});
