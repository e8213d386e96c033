/**
 * The broker's rules hold the same way in memory and in cluster mode with every step forced across
 * nodes: three gateway processes on one Redis, fake protocol-v1 controllers over real WebSockets.
 */
import { after, before, describe } from 'node:test';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { brokerConformance, type Topology } from './broker-suite.js';
import { startCluster, type TestCluster } from './fixtures/cluster-nodes.js';
import { startRedis, type TestRedis } from './fixtures/redis-server.js';

describe('broker rules, one embedded gateway', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());
  brokerConformance((): Topology => ({ register: gw, upgrade: gw, call: gw, reconnect: gw }));
});

describe('broker rules, cluster of three nodes: register on A, socket on B, call on C', () => {
  let redis: TestRedis;
  let cluster: TestCluster;
  before(async () => {
    redis = await startRedis();
    cluster = await startCluster(redis.url, 3);
  });
  after(async () => {
    await cluster?.close();
    await redis?.stop();
  });
  const nodes = () => cluster.nodes.map((node) => node.gw) as [TestGateway, TestGateway, TestGateway];
  describe('every step on another node', () => {
    brokerConformance((): Topology => {
      const [a, b, c] = nodes();
      return { register: a, upgrade: b, call: c, reconnect: a };
    });
  });
  describe('the call on the node that holds the socket', () => {
    brokerConformance((): Topology => {
      const [a, b, c] = nodes();
      return { register: a, upgrade: b, call: b, reconnect: c };
    });
  });
});
