/**
 * What a node (or `tabgate doctor`) can see of the whole cluster in Redis: the nodes alive by their
 * leases, and whether their configurations agree. A node whose config differs from the running nodes'
 * is refused at start, since fail-closed routing assumes every node judges a call the same way.
 */
import { createHash } from 'node:crypto';
import type { GatewayConfig } from '../config/index.js';
import { LEASE_TTL_MS } from './node-lease.js';
import type { RedisClient } from './redis-link.js';
import { ClusterConfigMismatchError } from '../start-errors.js';

/**
 * The digest of what must be equal on every node. Left out: what differs per node by design (home,
 * address, port) and the credentials, which never go into Redis, not even hashed.
 */
export function configDigest(config: GatewayConfig): string {
  const { home: _home, gateway, store: _store, cluster: _cluster, ...shared } = config;
  const { host: _host, port: _port, api_server: _key, ...gatewayShared } = gateway;
  return createHash('sha256')
    .update(JSON.stringify({ ...shared, gateway: gatewayShared }))
    .digest('hex')
    .slice(0, 16);
}

export interface LeaseValue {
  config: string;
  started: number;
  pid: number;
}

export interface NodeView extends LeaseValue {
  id: string;
  /** How long ago the lease was last renewed, from Redis' own TTL. */
  leaseAgeMs: number;
}

/** Every node whose lease is alive now. */
export async function liveNodes(client: RedisClient): Promise<NodeView[]> {
  const nodes: NodeView[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await client.sendCommand<[string, string[]]>([
      'SCAN',
      cursor,
      'MATCH',
      'tg:node:*',
      'COUNT',
      '500',
    ]);
    cursor = next;
    for (const key of keys) {
      const [value, ttl] = await Promise.all([
        client.sendCommand<string | null>(['GET', key]),
        client.sendCommand<number>(['PTTL', key]),
      ]);
      if (value === null || ttl < 0) continue;
      try {
        const lease = JSON.parse(value) as LeaseValue;
        nodes.push({ ...lease, id: key.slice('tg:node:'.length), leaseAgeMs: LEASE_TTL_MS - ttl });
      } catch {
        // Not a lease this version wrote: not a node it can judge.
      }
    }
  } while (cursor !== '0');
  return nodes;
}

export async function checkSameConfig(client: RedisClient, digest: string): Promise<void> {
  const other = (await liveNodes(client)).find((node) => node.config !== digest);
  if (!other) return;
  throw new ClusterConfigMismatchError(
    `this node's configuration (digest ${digest}) differs from the running cluster's (node ${other.id.slice(0, 8)}, pid ${other.pid}, digest ${other.config}); give every node the same config.yaml and environment`,
  );
}
