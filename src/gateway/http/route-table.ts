/**
 * A tiny route table: method + path pattern (`/v1/sessions/:id`) → route. Matching a path with another
 * method answers 405, matching nothing 404. Extra routes (MCP) are mounted the same way.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../service.js';
import type { JsonBody } from './body.js';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  /** Null only on routes declared `auth: 'none'` or `'custom'`. */
  caller: Caller | null;
  body: JsonBody;
  /** Aborted when the client goes away before the response is written. */
  signal: AbortSignal;
}

/** A handler returns a JSON reply, or writes to `ctx.res` itself and returns nothing. */
export interface Reply {
  status: number;
  body?: unknown;
}

export interface Route {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** Literal segments and `:name` placeholders matching one segment each. */
  path: string;
  /**
   * `api_key` (default): bearer required and it must be the API key; `controller`: any credential a
   * controller may hold (API key or, later, a pairing token); `custom`: the handler authenticates itself
   * (registration, whose checks run in the protocol's order).
   */
  auth?: 'api_key' | 'controller' | 'custom';
  /**
   * Also accept the gateway's own origin (`http://<Host>`): for pages the gateway itself serves (the
   * pairing approval page) posting back to it. Every other web origin is still refused.
   */
  sameOriginPage?: boolean;
  handle(ctx: RouteContext): Promise<Reply | void> | Reply | void;
}

interface CompiledRoute {
  route: Route;
  segments: string[];
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'wrong_method'; allowed: string[] }
  | { kind: 'none' };

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0);
}

export class RouteTable {
  private readonly compiled: CompiledRoute[] = [];

  add(...routes: Route[]): void {
    for (const route of routes) this.compiled.push({ route, segments: splitPath(route.path) });
  }

  /** Every route, in the order added. */
  list(): Route[] {
    return this.compiled.map(({ route }) => route);
  }

  match(method: string, pathname: string): RouteMatch {
    const segments = splitPath(pathname);
    const allowed: string[] = [];
    for (const { route, segments: pattern } of this.compiled) {
      const params = matchSegments(pattern, segments);
      if (!params) continue;
      if (route.method === method) return { kind: 'found', route, params };
      allowed.push(route.method);
    }
    return allowed.length > 0 ? { kind: 'wrong_method', allowed } : { kind: 'none' };
  }
}

function matchSegments(pattern: string[], segments: string[]): Record<string, string> | null {
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] as string;
    const actual = segments[i] as string;
    if (expected.startsWith(':')) {
      try {
        params[expected.slice(1)] = decodeURIComponent(actual);
      } catch {
        return null;
      }
    } else if (expected !== actual) return null;
  }
  return params;
}
