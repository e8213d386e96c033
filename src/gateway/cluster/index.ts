/**
 * Cluster mode (`cluster.redis_url`): this process becomes one node, with a fresh id per start (a
 * restarted process is a new node, never a revived one), and its broker keeps routing state in Redis.
 */
import { randomBytes } from 'node:crypto';
import type { SecretFill } from '../../protocol/index.js';
import type { Clock } from '../clock.js';
import type { GatewayConfig } from '../config/index.js';
import { checkSameConfig, configDigest } from './cluster-view.js';
import type { Logger } from '../../log/logger.js';
import type { BindingObserver } from '../session-binding.js';
import { ClusterBroker } from './cluster-broker.js';
import { RedisLink } from './redis-link.js';

export { ClusterBroker } from './cluster-broker.js';
export { SharedApprovalBook } from './shared-approvals.js';
export { relayStoreChanges } from './store-relay.js';
export { redactRedisUrl } from './redis-url.js';

export interface ClusterBrokerStart {
  redisUrl: string;
  clock: Clock;
  log: Logger;
  commandTimeoutMs: number;
  bindings?: BindingObserver;
  /** This node's vault, read by the node that holds the socket (see ClusterBrokerOptions.fills). */
  fills?: (name: string) => SecretFill;
  /** Must be equal on every node (but for address, port and credentials): compared at join. */
  config: GatewayConfig;
}

/** Connects (or throws ClusterUnreachableError naming the URL, password hidden) and joins the cluster. */
export async function startClusterBroker(o: ClusterBrokerStart): Promise<ClusterBroker> {
  const nodeId = randomBytes(16).toString('hex');
  const link = await RedisLink.open(o.redisUrl, nodeId, o.log);
  const digest = configDigest(o.config);
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
    await checkSameConfig(link.command, digest);
    await broker.start();
  } catch (error) {
    link.close();
    throw error;
  }
  o.log.info('joined the cluster', { node: nodeId });
  return broker;
}
