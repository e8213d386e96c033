/**
 * `GET /v1/browser-control/ws`: the HTTP server's `upgrade` event runs the guards and answers refusals
 * with raw HTTP statuses before any WebSocket handshake; the ticket is consumed last, then the socket is
 * accepted with subprotocol `hermes-browser-control-v1`. One timer sends every socket a keepalive
 * heartbeat every 20 s, because an MV3 service worker sleeps after ~30 s without data messages.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import {
  CONTROLLER_SUBPROTOCOL,
  CONTROLLER_WS_PATH,
  MAX_FRAME_BYTES,
  SERVER_KEEPALIVE_INTERVAL_MS,
  SERVER_KEEPALIVE_NONCE_PREFIX,
  httpStatusOf,
  type ErrorCode,
} from '../../protocol/index.js';
import type { ControllerBroker } from '../broker/controller-broker.js';
import type { ConsumeOutcome } from '../broker/tickets.js';
import { settle } from '../broker/controller-broker.js';
import type { HostGuard } from '../guards/host.js';
import type { OriginGuard } from '../guards/origin.js';
import type { Logger } from '../../log/logger.js';
import type { UserTabDownloads } from '../user-tab-downloads.js';
import { ControllerConnection } from './controller-connection.js';
import { checkUpgrade } from './upgrade-guards.js';

export interface ControllerEndpointDeps {
  broker: ControllerBroker;
  featureEnabled: () => boolean;
  hostGuard: () => HostGuard;
  originGuard: OriginGuard;
  log: Logger;
  keepaliveMs?: number;
  /** Writes the downloads the user's tab streams (user-tab-downloads.ts). */
  downloads?: UserTabDownloads;
  /** A ticket upgraded this socket to a controller socket (the connection limits stop counting it). */
  onAccepted?: (socket: Duplex) => void;
}

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

/** Refuses an upgrade with a plain HTTP response and the error body; the client never sees a WebSocket. */
function refuse(socket: Duplex, code: ErrorCode, message: string): void {
  const status = httpStatusOf(code);
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Refused'}\r\nConnection: close\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

export class ControllerEndpoint {
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    clientTracking: false,
    perMessageDeflate: false,
    // A client that offers subprotocols must get one back: Chrome fails a handshake whose answer selects
    // none ("Sent non-empty 'Sec-WebSocket-Protocol' header but no response was received", close 1006).
    handleProtocols: (protocols) => (protocols.has(CONTROLLER_SUBPROTOCOL) ? CONTROLLER_SUBPROTOCOL : false),
  });
  private readonly connections = new Set<ControllerConnection>();
  private readonly keepalive: NodeJS.Timeout;
  private keepaliveCount = 0;

  constructor(private readonly d: ControllerEndpointDeps) {
    this.keepalive = setInterval(() => this.sendKeepalives(), d.keepaliveMs ?? SERVER_KEEPALIVE_INTERVAL_MS);
    this.keepalive.unref();
  }

  get size(): number {
    return this.connections.size;
  }

  /** The HTTP server's `upgrade` listener. Returns false for paths that are not ours. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const q = req.url?.indexOf('?') ?? -1;
    const path = q === -1 ? req.url : req.url?.slice(0, q);
    if (path !== CONTROLLER_WS_PATH) return false;
    socket.on('error', () => socket.destroy());
    const verdict = checkUpgrade(req, {
      featureEnabled: this.d.featureEnabled,
      host: this.d.hostGuard(),
      origin: this.d.originGuard,
    });
    if (!verdict.ok) {
      this.d.log.info('controller upgrade refused', { code: verdict.code, reason: verdict.reason });
      refuse(socket, verdict.code, verdict.reason);
      return true;
    }
    let consumed: ConsumeOutcome | Promise<ConsumeOutcome>;
    try {
      consumed = this.d.broker.consumeTicket(verdict.ticket);
    } catch (error) {
      this.refuseUnavailable(socket, error);
      return true;
    }
    if (consumed instanceof Promise) {
      consumed.then(
        (outcome) => this.accept(req, socket, head, outcome),
        (error: unknown) => this.refuseUnavailable(socket, error),
      );
    } else this.accept(req, socket, head, consumed);
    return true;
  }

  /** The ticket store could not answer (a cluster node without Redis): nothing was consumed or opened. */
  private refuseUnavailable(socket: Duplex, error: unknown): void {
    this.d.log.warn('controller upgrade refused', {
      code: 'cluster_unavailable',
      reason: (error as Error).message,
    });
    refuse(socket, 'cluster_unavailable', 'The gateway cannot reach its cluster store; try again shortly.');
  }

  private accept(req: IncomingMessage, socket: Duplex, head: Buffer, consumed: ConsumeOutcome): void {
    // A cluster's consume took a round trip: the client may have gone meanwhile.
    if (socket.destroyed) return;
    if (!consumed.ok) {
      this.d.log.info('controller upgrade refused', { code: 'invalid_ticket', reason: consumed.reason });
      refuse(
        socket,
        'invalid_ticket',
        'The ticket is unknown, used or expired: register again for a new one.',
      );
      return;
    }
    this.d.onAccepted?.(socket);
    // The attach finishes before the handshake is answered: once the controller sees its socket open,
    // its lane is routable from every node, so no call in between meets a half-attached lane (503) or,
    // for a session not bound yet, the gateway's own browser. What the broker writes meanwhile waits in
    // the connection. Holding calls until the attach settles instead would only help calls on this
    // node: the others cannot see an attach in progress.
    const connection = new ControllerConnection(consumed.scope, this.d.broker, this.d.log, this.d.downloads);
    const gone = () => connection.abandon();
    socket.once('close', gone);
    void settle(connection.attach(), (attached) => {
      if (!attached) {
        socket.off('close', gone);
        if (!socket.destroyed) this.refuseUnavailable(socket, new Error('the attach failed'));
        return;
      }
      if (socket.destroyed) return;
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        // From here the socket's own close (through ws) takes the controller offline.
        socket.off('close', gone);
        this.connections.add(connection);
        ws.on('close', () => this.connections.delete(connection));
        connection.open(ws);
        this.d.log.info('browser controller attached', {
          session: consumed.scope.session_id,
          transport: consumed.scope.transport_family,
        });
      });
    });
  }

  /** Closes every socket with 1001 and stops the keepalive timer. */
  close(): void {
    clearInterval(this.keepalive);
    for (const connection of this.connections) connection.close(1001, 'gateway shutting down');
    for (const connection of this.connections) connection.terminate();
    this.connections.clear();
    this.wss.close();
  }

  private sendKeepalives(): void {
    const nonce = `${SERVER_KEEPALIVE_NONCE_PREFIX}${++this.keepaliveCount}`;
    for (const connection of this.connections) connection.keepalive(nonce);
  }
}
