/**
 * The controller socket and everything that keeps it up: registration with the pairing token (a fresh
 * ticket every time), the socket with both subprotocols, a heartbeat every 20 s while a session is live
 * (data frames: ws pings do not keep an MV3 worker awake), and a single-flight reconnect with backoff
 * 1, 2, 5, 10, 20, 30 s that stops on the registration codes retrying cannot fix. A `chrome.alarms`
 * backstop calls `ensure()` too, so a worker Chrome stopped comes back on its own.
 */
import {
  CONTROLLER_SUBPROTOCOL,
  encodeFrame,
  FRAME_METHODS,
  parseFrame,
  TICKET_SUBPROTOCOL_PREFIX,
  type DownloadAckParams,
  type Frame,
} from '../../protocol/index.js';
import { chrome } from '../chrome-api.js';
import { identity, readLocal, readSession, writeSession, type Status } from './durable-state.js';
import { FATAL_REGISTRATION_CODES, GatewayError, register } from './gateway-api.js';

export const BACKOFF_SECONDS = [1, 2, 5, 10, 20, 30] as const;
export const HEARTBEAT_MS = 20_000;
const OUTBOX_LIMIT = 256;

export interface LinkHandlers {
  onCommand(frame: Extract<Frame, { method: 'browser.controller.command' }>): void;
  onCancel(commandId: string): void;
  /** Registration refused for good (token revoked, feature off): the owner of the share decides what ends. */
  onRefused(error: GatewayError): Promise<void>;
  /** The gateway's answer to a chunk of a download (tab-downloads.ts). */
  onDownloadAck?(ack: DownloadAckParams): void;
}

export class ControllerLink {
  private socket: WebSocket | null = null;
  private connecting: Promise<void> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private heartbeatTimer: ReturnType<typeof setInterval> | null = null;
  private heartbeats = 0;
  /**
   * Bumped by every stop: a connect begun before it (the wake alarm's, a retry's) belongs to a share
   * that has ended, and must neither open a socket nor write the status the next share shows.
   */
  private epoch = 0;
  /** Results finished while the socket was down: sent first thing after the next open. */
  private readonly outbox: string[] = [];

  constructor(private readonly handlers: LinkHandlers) {}

  get open(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  /** Connects if a share wants a controller and none is up; concurrent callers share one attempt. */
  ensure(reason: string): Promise<void> {
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) return Promise.resolve();
    if (this.connecting) return this.connecting;
    const attempt = this.connect(reason, this.epoch).finally(() => {
      if (this.connecting === attempt) this.connecting = null;
    });
    this.connecting = attempt;
    return attempt;
  }

  /**
   * Sends a frame now, or keeps a result for the next socket (a reconnect may still complete it).
   * Whether it went out now.
   */
  send(frame: Frame): boolean {
    const text = encodeFrame(frame);
    if (this.socket?.readyState === WebSocket.OPEN) {
      this.socket.send(text);
      return true;
    }
    if (frame.method === FRAME_METHODS.result && this.outbox.length < OUTBOX_LIMIT) this.outbox.push(text);
    return false;
  }

  /** Stop: tell the gateway (`detach`), close, and do not come back until the next share. */
  async stop(): Promise<void> {
    this.epoch++;
    // The next ensure() starts its own attempt for the share that comes next, never joins this one's.
    this.connecting = null;
    this.clearRetry();
    const socket = this.socket;
    this.socket = null;
    this.stopHeartbeat();
    this.outbox.length = 0;
    if (socket?.readyState === WebSocket.OPEN) {
      socket.send(encodeFrame({ method: FRAME_METHODS.detach, params: {} }));
      // Give the detach a moment to reach the gateway before the close does.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    socket?.close(1000, 'stopped');
    await this.setStatus({ state: 'idle', error: null, attempt: 0 });
  }

  private async connect(reason: string, epoch: number): Promise<void> {
    this.clearRetry();
    const [share, pairing, base, status] = await Promise.all([
      readLocal('share'),
      readLocal('pairing'),
      readLocal('gateway_url'),
      readSession('status'),
    ]);
    if (!share || !pairing) return;
    if (status.state === 'stopped') return;
    // A share stopped between the stop() and the end of its storage write is still read here: the
    // session id is checked again after every wait, with the epoch.
    const wanted = async (): Promise<boolean> => {
      const now = await readLocal('share');
      return epoch === this.epoch && now?.session_id === share.session_id;
    };
    if (!(await wanted())) return;
    await this.setStatus({ ...status, state: 'connecting' });
    const ids = await identity();
    let ticket: string;
    let wsPath: string;
    try {
      const registration = await register(base, pairing.token, {
        session_id: share.session_id,
        ...ids,
        version: chrome.runtime.getManifest().version,
      });
      ticket = registration.ticket;
      wsPath = registration.ws_path;
    } catch (error) {
      if (!(await wanted())) return;
      const gatewayError =
        error instanceof GatewayError
          ? error
          : new GatewayError('network', String((error as Error).message ?? error), 0);
      if (FATAL_REGISTRATION_CODES.has(gatewayError.code)) {
        await this.setStatus({
          state: 'stopped',
          error: { code: gatewayError.code, message: gatewayError.message },
          attempt: status.attempt,
        });
        await this.handlers.onRefused(gatewayError);
        return;
      }
      await this.scheduleRetry({ code: gatewayError.code, message: gatewayError.message });
      return;
    }
    // An unused ticket simply expires at the gateway.
    if (!(await wanted())) return;
    const url = base.replace(/^http/, 'ws') + wsPath;
    const socket = new WebSocket(url, [CONTROLLER_SUBPROTOCOL, TICKET_SUBPROTOCOL_PREFIX + ticket]);
    this.socket = socket;
    socket.onmessage = (event) => this.onMessage(event.data);
    socket.onclose = () => void this.onClose(socket);
    await new Promise<void>((resolve) => {
      socket.addEventListener('open', () => resolve(), { once: true });
      socket.addEventListener('close', () => resolve(), { once: true });
    });
    if (socket.readyState !== WebSocket.OPEN) return;
    if (!(await wanted())) {
      if (this.socket === socket) this.socket = null;
      socket.close(1000, 'stopped');
      return;
    }
    await this.setStatus({ state: 'connected', error: null, attempt: 0 });
    for (const text of this.outbox.splice(0)) socket.send(text);
    this.startHeartbeat(socket);
    console.info(`tabgate: controller connected (${reason})`);
  }

  private onMessage(data: unknown): void {
    if (typeof data !== 'string') return;
    const frame = parseFrame(data);
    if (!frame) return;
    if (frame.method === FRAME_METHODS.command) this.handlers.onCommand(frame);
    else if (frame.method === FRAME_METHODS.cancel) this.handlers.onCancel(frame.params.command_id);
    else if (frame.method === FRAME_METHODS.downloadAck) this.handlers.onDownloadAck?.(frame.params);
  }

  private async onClose(socket: WebSocket): Promise<void> {
    if (this.socket !== socket) return;
    this.socket = null;
    this.stopHeartbeat();
    const share = await readLocal('share');
    if (share)
      await this.scheduleRetry({ code: 'socket_closed', message: 'The connection to the gateway closed.' });
  }

  private async scheduleRetry(error: Status['error']): Promise<void> {
    const status = await readSession('status');
    if (status.state === 'stopped') return;
    const delay = BACKOFF_SECONDS[Math.min(status.attempt, BACKOFF_SECONDS.length - 1)] ?? 30;
    await this.setStatus({ state: 'offline', error, attempt: status.attempt + 1 });
    this.clearRetry();
    this.retryTimer = setTimeout(() => void this.ensure('retry'), delay * 1000);
  }

  private startHeartbeat(socket: WebSocket): void {
    this.stopHeartbeat();
    this.heartbeatTimer = setInterval(() => {
      if (socket.readyState !== WebSocket.OPEN) return;
      const nonce = `ext-${Date.now().toString(36)}-${++this.heartbeats}`;
      socket.send(encodeFrame({ method: FRAME_METHODS.heartbeat, params: { nonce } }));
    }, HEARTBEAT_MS);
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer !== null) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  private clearRetry(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private async setStatus(status: Status): Promise<void> {
    await writeSession('status', status);
  }
}
