/**
 * The lane registry: which controllers are attached (online or offline), which socket owns each, and
 * the cancel frames waiting for an offline controller's return. In memory by default; a shared
 * implementation (Redis) would also say which gateway holds each socket.
 */
import type { CancelParams } from '../../protocol/index.js';
import { identityKey, laneKey, lookupKeyOfScope, type ControllerScope } from './scope.js';

export interface ControllerRecord {
  scope: ControllerScope;
  /** Routable: attached to a live socket and every deferred cancel flushed. */
  connected: boolean;
  /** Opaque token of the socket that holds the controller; null while offline. */
  owner: object | null;
  /** Cancels for commands that timed out while offline, oldest first, sent before routing resumes. */
  deferredCancels: CancelParams[];
}

export interface LaneRegistry {
  get(identity: string): ControllerRecord | undefined;
  put(record: ControllerRecord): void;
  remove(identity: string): ControllerRecord | undefined;
  /** Records in the same replacement lane as the scope, whatever their identity. */
  inLane(scope: ControllerScope): ControllerRecord[];
  /** Records an agent's call in this session would find (see sessionLookupKey). */
  lookup(sessionLookupKey: string): ControllerRecord[];
  all(): ControllerRecord[];
  clear(): void;
}

export class InMemoryLaneRegistry implements LaneRegistry {
  private readonly byIdentity = new Map<string, ControllerRecord>();
  private readonly byLookup = new Map<string, Set<string>>();

  get(identity: string): ControllerRecord | undefined {
    return this.byIdentity.get(identity);
  }

  put(record: ControllerRecord): void {
    const identity = identityKey(record.scope);
    this.byIdentity.set(identity, record);
    const key = lookupKeyOfScope(record.scope);
    let set = this.byLookup.get(key);
    if (!set) this.byLookup.set(key, (set = new Set()));
    set.add(identity);
  }

  remove(identity: string): ControllerRecord | undefined {
    const record = this.byIdentity.get(identity);
    if (!record) return undefined;
    this.byIdentity.delete(identity);
    const key = lookupKeyOfScope(record.scope);
    const set = this.byLookup.get(key);
    set?.delete(identity);
    if (set?.size === 0) this.byLookup.delete(key);
    return record;
  }

  inLane(scope: ControllerScope): ControllerRecord[] {
    const lane = laneKey(scope);
    return this.lookup(lookupKeyOfScope(scope)).filter((record) => laneKey(record.scope) === lane);
  }

  lookup(sessionLookupKey: string): ControllerRecord[] {
    const set = this.byLookup.get(sessionLookupKey);
    const records: ControllerRecord[] = [];
    if (!set) return records;
    for (const identity of set) {
      const record = this.byIdentity.get(identity);
      if (record) records.push(record);
    }
    return records;
  }

  all(): ControllerRecord[] {
    return [...this.byIdentity.values()];
  }

  clear(): void {
    this.byIdentity.clear();
    this.byLookup.clear();
  }
}
