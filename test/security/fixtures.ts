/**
 * Raw HTTP for the security suite: the tests choose the Host, Origin and body bytes themselves (fetch
 * would set or forbid them), and may pick the local address, to play a second peer (127.0.0.2).
 */
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed JSON error code, when the body is a tabgate error. */
  code: string | undefined;
}

export function rawRequest(
  baseUrl: string,
  o: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    localAddress?: string;
  },
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: o.method ?? 'GET',
        path: o.path,
        // An explicit length: Node sends DELETE bodies unframed otherwise.
        headers:
          o.body === undefined || o.headers?.['transfer-encoding']
            ? o.headers
            : { 'content-length': String(Buffer.byteLength(o.body)), ...o.headers },
        localAddress: o.localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let code: string | undefined;
          try {
            code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
          } catch {
            code = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, code });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

/** A concrete path for a route pattern: every `:param` becomes a harmless placeholder. */
export const concretePath = (pattern: string): string => pattern.replace(/:[A-Za-z_]+/g, 'x');
