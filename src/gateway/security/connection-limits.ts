/**
 * Caps on open sockets, so that a process without any credential cannot hold the gateway's file
 * descriptors and lock its owner out. A socket counts as unauthenticated from `accept` until a request
 * on it proves a credential (API key, pairing token, operator) or a ticket upgrades it to a controller
 * socket. Past the cap on unauthenticated sockets, per peer or in total, the *oldest* unauthenticated
 * socket is closed to make room: a newcomer — the owner's next call included — is always let in, and a
 * flood only churns its own sockets. Proven sockets are never closed here; `server.maxConnections`
 * (the total cap) is the hard ceiling, kept below the process's descriptor limit.
 */
import fs from 'node:fs';
import type { Socket } from 'node:net';
import { peerOf } from './peer.js';

export interface ConnectionLimitSettings {
  /** Sockets of any kind; new ones past it are refused at `accept` (`server.maxConnections`). */
  maxConnections: number;
  /** Unauthenticated sockets in total. */
  maxUnauthenticated: number;
  /** Unauthenticated sockets of one peer (all of loopback is one peer). */
  maxUnauthenticatedPerPeer: number;
}

/** Descriptors kept free for the store, the audit journal, the browser's pipes and the log. */
export const RESERVED_DESCRIPTORS = 256;

/** The soft limit on open files of this process, or null where /proc does not say. */
export function openFileLimit(): number | null {
  try {
    const limits = fs.readFileSync('/proc/self/limits', 'utf8');
    const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
    return soft === undefined ? null : Number(soft);
  } catch {
    return null;
  }
}

/** The total cap actually applied: the configured one, never above the descriptor limit's room. */
export function effectiveMaxConnections(configured: number, fileLimit = openFileLimit()): number {
  if (fileLimit === null) return configured;
  return Math.max(64, Math.min(configured, fileLimit - RESERVED_DESCRIPTORS));
}

export class ConnectionLimits {
  /** Unauthenticated sockets, oldest first (Map and Set keep insertion order). */
  private readonly unproven = new Map<Socket, string>();
  private readonly byPeer = new Map<string, Set<Socket>>();
  private evictedCount = 0;

  constructor(private readonly settings: ConnectionLimitSettings) {}

  /** The server's `connection` listener. */
  admit(socket: Socket): void {
    const peer = peerOf(socket.remoteAddress);
    let own = this.byPeer.get(peer);
    if (own && own.size >= this.settings.maxUnauthenticatedPerPeer) this.evictOldest(own);
    if (this.unproven.size >= this.settings.maxUnauthenticated) this.evictOldest(this.unproven.keys());
    if (!own) this.byPeer.set(peer, (own = new Set()));
    own.add(socket);
    this.unproven.set(socket, peer);
    socket.once('close', () => this.forget(socket));
  }

  /** The socket proved a credential: it no longer counts against the unauthenticated caps. */
  prove(socket: object): void {
    this.forget(socket as Socket);
  }

  get maxConnections(): number {
    return this.settings.maxConnections;
  }

  /** Unauthenticated sockets open now. */
  get unauthenticated(): number {
    return this.unproven.size;
  }

  /** Unauthenticated sockets closed to make room since start. */
  get evicted(): number {
    return this.evictedCount;
  }

  private evictOldest(sockets: Iterable<Socket>): void {
    for (const socket of sockets) {
      this.forget(socket);
      this.evictedCount++;
      socket.destroy();
      return;
    }
  }

  private forget(socket: Socket): void {
    const peer = this.unproven.get(socket);
    if (peer === undefined) return;
    this.unproven.delete(socket);
    const own = this.byPeer.get(peer);
    own?.delete(socket);
    if (own?.size === 0) this.byPeer.delete(peer);
  }
}
