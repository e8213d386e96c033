/**
 * `tabgate doctor`'s lines about the cluster: whether this node's Redis and PostgreSQL answer (and
 * which versions), which nodes are alive by their leases, and whether any runs another configuration
 * than this one. URLs are shown with their passwords hidden, and error texts are scrubbed of them.
 */
import type { GatewayConfig } from '../gateway/config/index.js';
import type { Finding } from './doctor-checks.js';
import { redactStoreUrl, scrubPassword } from '../gateway/store/store-url.js';
import { configDigest, liveNodes } from '../gateway/cluster/cluster-view.js';
import { redactRedisUrl } from '../gateway/cluster/redis-url.js';

const TIMEOUT_MS = 3000;

export async function clusterFindings(config: GatewayConfig): Promise<Finding[]> {
  const findings: Finding[] = [];
  if (config.cluster.redis_url) findings.push(...(await redisFindings(config, config.cluster.redis_url)));
  if (config.store.url) findings.push(await postgresFinding(config.store.url));
  return findings;
}

async function redisFindings(config: GatewayConfig, url: string): Promise<Finding[]> {
  // The clients load only when the configuration names a Redis or a PostgreSQL to check.
  const { createClient } = await import('redis');
  const shown = redactRedisUrl(url);
  const client = createClient({
    url,
    RESP: 2,
    disableOfflineQueue: true,
    socket: { connectTimeout: TIMEOUT_MS, reconnectStrategy: false },
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const info = await client.sendCommand<string>(['INFO', 'server']);
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown version';
    const findings: Finding[] = [
      { level: 'ok', check: 'cluster', message: `Redis at ${shown} answers (Redis ${version})` },
    ];
    const mine = configDigest(config);
    const nodes = await liveNodes(client);
    for (const node of nodes) {
      const differs = node.config !== mine;
      findings.push({
        level: differs ? 'error' : 'info',
        check: 'cluster',
        message:
          `node ${node.id.slice(0, 8)} (pid ${node.pid}) alive, lease renewed ${node.leaseAgeMs} ms ago` +
          (differs
            ? `; it runs another configuration (digest ${node.config}) than this one (${mine}), so new nodes are refused`
            : ''),
      });
    }
    if (nodes.length === 0)
      findings.push({ level: 'info', check: 'cluster', message: 'no node is running on this Redis' });
    return findings;
  } catch (error) {
    return [
      {
        level: 'error',
        check: 'cluster',
        message: `cannot reach the cluster's Redis at ${shown}: ${scrubPassword((error as Error).message, url)}`,
      },
    ];
  } finally {
    client.destroy();
  }
}

async function postgresFinding(url: string): Promise<Finding> {
  const { default: pg } = await import('pg');
  const shown = redactStoreUrl(url);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return {
      level: 'ok',
      check: 'store',
      message: `PostgreSQL at ${shown} answers (PostgreSQL ${rows[0]?.server_version ?? 'unknown version'})`,
    };
  } catch (error) {
    return {
      level: 'error',
      check: 'store',
      message: `cannot use the PostgreSQL store at ${shown}: ${scrubPassword((error as Error).message, url)}`,
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}
