/**
 * The far side of bench/controller.ts, run as a child process so the gateway's memory and CPU are
 * measured apart from its clients: one bare ws echo client (the floor) or many, one controller without
 * registration (for the floor carrying protocol frames), or N protocol v1 controllers that answer every
 * command at once. Driven over IPC.
 */
import { WebSocket } from 'ws';
import {
  CONTROLLER_CAPABILITIES,
  CONTROLLER_SUBPROTOCOL,
  REGISTER_PATH,
  TICKET_SUBPROTOCOL_PREFIX,
} from '../src/protocol/index.js';

type Order =
  | { kind: 'echo'; url: string }
  | { kind: 'echoes'; url: string; count: number }
  | { kind: 'frames'; url: string }
  | { kind: 'controllers'; url: string; key: string; sessions: string[] }
  | { kind: 'exit' };

const sockets: WebSocket[] = [];

function opened(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
}

async function echo(url: string): Promise<void> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  ws.on('message', (data) => ws.send(data as Buffer, { binary: false }));
  sockets.push(ws);
  await opened(ws);
}

/** What every bench controller does: answer each command at once with an empty tab list. */
function answerCommands(ws: WebSocket): void {
  ws.on('message', (data) => {
    const frame = JSON.parse((data as Buffer).toString('utf8')) as {
      method: string;
      params: { command_id: string };
    };
    if (frame.method !== 'browser.controller.command') return;
    ws.send(
      JSON.stringify({
        method: 'browser.controller.result',
        params: { command_id: frame.params.command_id, ok: true, result: { tabs: [] } },
      }),
    );
  });
}

async function framesPeer(url: string): Promise<void> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  answerCommands(ws);
  sockets.push(ws);
  await opened(ws);
}

async function controller(url: string, key: string, sessionId: string, index: number): Promise<void> {
  const response = await fetch(url + REGISTER_PATH, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      protocol_version: 1,
      session_id: sessionId,
      controller_id: `bench-${index}`,
      browser_profile_id: 'bench',
      capabilities: [...CONTROLLER_CAPABILITIES],
    }),
  });
  const { ticket } = (await response.json()) as { ticket: string };
  const ws = new WebSocket(
    url.replace(/^http/, 'ws') + '/v1/browser-control/ws',
    [CONTROLLER_SUBPROTOCOL, TICKET_SUBPROTOCOL_PREFIX + ticket],
    { perMessageDeflate: false },
  );
  answerCommands(ws);
  sockets.push(ws);
  await opened(ws);
}

process.on('message', (order: Order) => {
  void (async () => {
    if (order.kind === 'exit') {
      for (const ws of sockets) ws.terminate();
      process.exit(0);
    }
    if (order.kind === 'echo') await echo(order.url);
    else if (order.kind === 'echoes') {
      // In batches, as the controllers connect.
      for (let i = 0; i < order.count; i += 50) {
        await Promise.all(Array.from({ length: Math.min(50, order.count - i) }, () => echo(order.url)));
      }
    } else if (order.kind === 'frames') await framesPeer(order.url);
    else {
      // Connect in batches: 1,000 simultaneous registrations only measure the accept queue.
      for (let i = 0; i < order.sessions.length; i += 50) {
        await Promise.all(
          order.sessions.slice(i, i + 50).map((id, j) => controller(order.url, order.key, id, i + j)),
        );
      }
    }
    process.send?.({ ready: sockets.length });
  })();
});
