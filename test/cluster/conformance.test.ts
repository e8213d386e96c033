/**
 * The broker's rules hold the same way in memory and in cluster mode with every step forced across
 * nodes: three gateway processes on one Redis, fake protocol-v1 controllers over real WebSockets.
 */
import { after, before, describe } from 'node:test';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { brokerConformance, type Topology } from './broker-suite.js';
import { useCluster } from './fixtures/cluster-nodes.js';

describe('broker rules, one embedded gateway', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());
  brokerConformance((): Topology => ({ register: gw, upgrade: gw, call: gw, reconnect: gw }));
});

describe('broker rules, cluster of three nodes: register on A, socket on B, call on C', () => {
  const fixture = useCluster(3);
  const nodes = () => fixture.gateways() as [TestGateway, TestGateway, TestGateway];
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
