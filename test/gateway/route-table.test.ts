import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RouteTable, type Route } from '../../src/gateway/http/route-table.js';

const route = (method: Route['method'], path: string): Route => ({ method, path, handle: () => undefined });

test('a path matched again finds the same route, and one request cannot change the next one’s params', () => {
  const table = new RouteTable();
  const call = route('POST', '/v1/sessions/:id/tools/:tool');
  table.add(route('GET', '/v1/sessions/:id'), call);
  const first = table.match('POST', '/v1/sessions/s%201/tools/browser_tabs');
  assert.equal(first.kind === 'found' && first.route, call);
  assert.deepEqual(first.kind === 'found' && first.params, { id: 's 1', tool: 'browser_tabs' });
  if (first.kind === 'found') Object.assign(first.params, { id: 'other' });
  const again = table.match('POST', '/v1/sessions/s%201/tools/browser_tabs');
  assert.deepEqual(again.kind === 'found' && again.params, { id: 's 1', tool: 'browser_tabs' });
});

test('a route added after a miss is found, and other methods still answer 405 with what is allowed', () => {
  const table = new RouteTable();
  table.add(route('GET', '/v1/sessions/:id'));
  assert.equal(table.match('GET', '/v1/sessions/a').kind, 'found');
  assert.deepEqual(table.match('DELETE', '/v1/sessions/a'), { kind: 'wrong_method', allowed: ['GET'] });
  table.add(route('DELETE', '/v1/sessions/:id'));
  assert.equal(table.match('DELETE', '/v1/sessions/a').kind, 'found');
  assert.equal(table.match('GET', '/v1/sessions/a/extra').kind, 'none');
  assert.equal(table.match('GET', '/v1/sessions/%E0%A4%A').kind, 'none');
});

test('with thousands of sessions, each path finds its own route and params, and a route of another length is never compared', () => {
  const table = new RouteTable();
  const session = route('GET', '/v1/sessions/:id');
  const call = route('POST', '/v1/sessions/:id/tools/:tool');
  table.add(session, call, route('POST', '/v1/sessions/:id/stop'));
  for (let i = 0; i < 5000; i++) {
    const found = table.match('POST', `/v1/sessions/s${i}/tools/browser_tabs`);
    assert.equal(found.kind === 'found' && found.route, call);
    assert.deepEqual(found.kind === 'found' && found.params, { id: `s${i}`, tool: 'browser_tabs' });
  }
  assert.equal(table.match('GET', '//v1//sessions/a/').kind, 'found');
  assert.deepEqual(table.match('GET', '/v1/sessions/a/stop'), { kind: 'wrong_method', allowed: ['POST'] });
});
