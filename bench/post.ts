/**
 * The benchmarks' HTTP call: a POST over one shared keep-alive agent (so connection set-up is not
 * measured), answering the status once the body is read.
 */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function post(url: string, headers: Record<string, string>, body = '{}'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', ...headers },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Lets the kept-alive connections go, so the benchmark's process can end. */
export function closePosts(): void {
  agent.destroy();
}
