/**
 * The HTTP request pipeline, the same for every route: Host → Origin → route → body (1 MiB,
 * JSON only) → bearer → handler → one renderer for replies and errors → one log line. The log line has
 * method, path, status and duration: never the query string, headers or body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TabgateError } from '../../protocol/index.js';
import type { Authenticator } from '../auth/authenticator.js';
import { ProvenConnections } from '../auth/proven-connections.js';
import type { HostGuard } from '../guards/host.js';
import type { OriginGuard } from '../guards/origin.js';
import type { Logger } from '../../log/logger.js';
import type { OperatorAuth } from '../operator/index.js';
import type { Caller } from '../service.js';
import { isJsonContentType, parseJsonBody, readBody, type JsonBody } from './body.js';
import { ClientGone } from './client-gone.js';
import { sendError, sendJson } from './respond.js';
import type { Route, RouteTable } from './route-table.js';

export interface HttpAppDeps {
  routes: RouteTable;
  hostGuard: () => HostGuard;
  originGuard: OriginGuard;
  authenticator: Authenticator;
  operator: OperatorAuth;
  log: Logger;
  /** A request on this socket proved a credential (the connection limits stop counting it). */
  onProved?: (socket: object) => void;
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}

export function createHttpApp(deps: HttpAppDeps) {
  const { log } = deps;

  const proven = new ProvenConnections();

  function authenticate(req: IncomingMessage, route: Route): Caller | null {
    if (route.auth === 'custom') return null;
    if (route.auth === 'operator') {
      const owner = deps.operator.require(req);
      deps.onProved?.(req.socket);
      return owner;
    }
    const header = req.headers.authorization;
    let caller = proven.recall(req.socket, header);
    if (!caller) {
      caller = deps.authenticator.authenticate(header, req.socket.remoteAddress);
      if (!caller) throw new TabgateError('invalid_api_key', 'Missing or invalid API key.');
      proven.remember(req.socket, header, caller);
      deps.onProved?.(req.socket);
    }
    if ((route.auth ?? 'api_key') === 'api_key' && caller.credential !== 'api_key') {
      throw new TabgateError(
        'token_scope_forbidden',
        'This credential may only act as a browser controller.',
      );
    }
    return caller;
  }

  async function run(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    signal: ClientGone,
    served: { route?: Route },
  ) {
    if (!deps.hostGuard().allows(req.headers.host)) {
      throw new TabgateError('forbidden_host', 'The Host header does not name this gateway.');
    }
    const match = deps.routes.match(req.method ?? 'GET', path);
    if (match.kind === 'found') served.route = match.route;
    const origin = req.headers.origin;
    const ownPage =
      match.kind === 'found' &&
      match.route.sameOriginPage === true &&
      origin?.toLowerCase() === `http://${req.headers.host ?? ''}`.toLowerCase();
    if (!ownPage && !deps.originGuard.allows(origin)) {
      throw new TabgateError('forbidden_origin', 'Requests from web pages are not accepted.');
    }
    if (match.kind === 'none') throw new TabgateError('not_found', `No route for ${path.slice(0, 200)}.`);
    if (match.kind === 'wrong_method') {
      res.setHeader('allow', match.allowed.join(', '));
      throw new TabgateError('method_not_allowed', `Use ${match.allowed.join(' or ')} on this path.`);
    }
    let body: JsonBody = { kind: 'empty' };
    if (METHODS_WITH_BODY.has(req.method ?? '')) {
      const raw = await readBody(req);
      if (raw.length > 0 && !isJsonContentType(req.headers['content-type'])) {
        throw new TabgateError('unsupported_media_type', 'Send the body as application/json.');
      }
      body = parseJsonBody(raw);
    }
    const caller = authenticate(req, match.route);
    const reply = await match.route.handle({
      req,
      res,
      params: match.params,
      caller,
      body,
      signal,
    });
    if (reply) sendJson(res, reply.status, reply.body);
  }

  return (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    const path = pathOf(req.url);
    const signal = new ClientGone();
    // The route that served it, once matched: what it declares decides how the request is logged.
    const served: { route?: Route } = {};
    res.on('close', () => {
      if (!res.writableFinished) signal.abort();
      const quiet = served.route?.quietLog === true && res.statusCode < 400;
      log[quiet ? 'debug' : 'info']('request', {
        method: req.method,
        path: path.slice(0, 300),
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
      });
    });
    run(req, res, path, signal, served).catch((error: unknown) => {
      if (error instanceof TabgateError && error.code === 'body_too_large') {
        // Stop reading the rest of an oversized body; the client learns why, then the socket closes.
        res.setHeader('connection', 'close');
        res.once('finish', () => req.destroy());
      }
      sendError(res, error, log, `${req.method} ${path}`);
    });
  };
}
