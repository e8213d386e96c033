/**
 * Cluster mode (`cluster.redis_url`): this process becomes one node, with a fresh id per start (a
 * restarted process is a new node, never a revived one), and its broker keeps routing state in Redis.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SecretFill } from '../../protocol/index.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../../log/logger.js';
import type { BindingObserver } from '../session-binding.js';
import { ClusterBroker } from './cluster-broker.js';
import { RedisLink } from './redis-link.js';

export { ClusterBroker } from './cluster-broker.js';
export { ClusterUnreachableError } from './redis-link.js';
export { redactRedisUrl } from './redis-url.js';

export interface ClusterBrokerStart {
  redisUrl: string;
  clock: Clock;
  log: Logger;
  commandTimeoutMs: number;
  bindings?: BindingObserver;
  /** This node's vault, read by the node that holds the socket (see ClusterBrokerOptions.fills). */
  fills?: (name: string) => SecretFill;
  /** Anything that must be equal on every node (the config), shown in the lease as a digest. */
  configDigestOf: unknown;
}

/** Connects (or throws ClusterUnreachableError naming the URL, password hidden) and joins the cluster. */
export async function startClusterBroker(o: ClusterBrokerStart): Promise<ClusterBroker> {
  const nodeId = randomBytes(16).toString('hex');
  const link = await RedisLink.open(o.redisUrl, nodeId, o.log);
  const digest = createHash('sha256').update(JSON.stringify(o.configDigestOf)).digest('hex').slice(0, 16);
  const broker = new ClusterBroker({
    link,
    nodeId,
    leaseValue: JSON.stringify({ config: digest, started: Date.now(), pid: process.pid }),
    clock: o.clock,
    log: o.log,
    commandTimeoutMs: o.commandTimeoutMs,
    bindings: o.bindings,
    fills: o.fills,
  });
  try {
    await broker.start();
  } catch (error) {
    link.close();
    throw error;
  }
  o.log.info('joined the cluster', { node: nodeId });
  return broker;
}
