/**
 * Sends a download's body from the user's tab to the gateway: read from the debugger
 * (`Fetch.takeResponseBodyAsStream`, `IO.read`) and sent in `download` frames, one chunk at a time,
 * each waited for until the gateway answers it (it writes, caps and hashes them; its answer to the last
 * says what it kept).
 */
import {
  DOWNLOAD_CHUNK_BYTES,
  FRAME_METHODS,
  type DownloadAckParams,
  type DownloadInfo,
  type Frame,
} from '../../protocol/index.js';
import type { PausedResponse } from './tab-network.js';

/** How long the gateway may take to answer one chunk. */
const ACK_WITHIN_MS = 30_000;

type ChunkParams = Extract<Frame, { method: 'browser.controller.download' }>['params'];

/** A download that did not complete, as this side knows it (the gateway's answer carries the rest). */
export const stoppedInfo = (name: string, reason: string): DownloadInfo => ({
  name,
  size: 0,
  mime: '',
  state: 'stopped',
  reason,
});

export class DownloadSender {
  private readonly acks = new Map<string, (ack: DownloadAckParams) => void>();

  constructor(
    /** Sends a frame to the gateway; false when the socket is not open. */
    private readonly send: (frame: Frame) => boolean,
  ) {}

  /** The gateway's answer to a chunk. */
  onAck(ack: DownloadAckParams): void {
    this.acks.get(`${ack.download_id}:${ack.seq}`)?.(ack);
  }

  /** Reads the body from the debugger and sends it to the gateway; what the gateway kept. */
  async stream(response: PausedResponse, name: string, size: number | undefined): Promise<DownloadInfo> {
    const { session } = response;
    const id = hexId();
    const { stream } = await session.send<{ stream: string }>('Fetch.takeResponseBodyAsStream', {
      requestId: response.requestId,
    });
    let seq = 0;
    try {
      for (;;) {
        const read = await session.send<{ data: string; base64Encoded?: boolean; eof: boolean }>('IO.read', {
          handle: stream,
          size: DOWNLOAD_CHUNK_BYTES,
        });
        const bytes = read.base64Encoded ? fromBase64(read.data) : new TextEncoder().encode(read.data);
        // Text comes back decoded and may grow as UTF-8: each frame stays within one chunk.
        for (let at = 0; at < bytes.length || (at === 0 && read.eof); at += DOWNLOAD_CHUNK_BYTES) {
          const part = bytes.subarray(at, at + DOWNLOAD_CHUNK_BYTES);
          const last = read.eof && at + DOWNLOAD_CHUNK_BYTES >= bytes.length;
          const ack = await this.chunk({
            download_id: id,
            seq,
            ...(seq === 0 ? { name, ...(size !== undefined ? { expected_size: size } : {}) } : {}),
            data_base64: toBase64(part),
            ...(last ? { end: true } : {}),
          });
          seq++;
          if (!ack.ok) return ack.info ?? stoppedInfo(name, 'stopped by the gateway');
          if (last) return ack.info ?? stoppedInfo(name, 'lost');
        }
      }
    } finally {
      await session.send('IO.close', { handle: stream }).catch(() => undefined);
    }
  }

  private chunk(params: ChunkParams): Promise<DownloadAckParams> {
    const key = `${params.download_id}:${params.seq}`;
    return new Promise<DownloadAckParams>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.acks.delete(key);
        reject(new Error('the gateway did not answer'));
      }, ACK_WITHIN_MS);
      this.acks.set(key, (ack) => {
        clearTimeout(timer);
        this.acks.delete(key);
        resolve(ack);
      });
      if (!this.send({ method: FRAME_METHODS.download, params })) {
        clearTimeout(timer);
        this.acks.delete(key);
        reject(new Error('the gateway is not connected'));
      }
    });
  }
}

function hexId(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
