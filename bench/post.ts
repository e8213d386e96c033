/**
 * The benchmarks' HTTP call: a POST over one shared keep-alive agent (so connection set-up is not
 * measured), answering the status once the body is read.
 */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function post(url: string, headers: Record<string, string>, body = '{}'): Promise<number> {
  return send(url, headers, body, false);
}

function send(url: string, headers: Record<string, string>, body: string, retry: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', ...headers },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      // The connection closed before the whole body came: the run is told, not left waiting.
      res.on('error', reject);
    });
    req.on('error', (error) => {
      // The server may close a kept-alive socket it found idle just as this request is written on it
      // (ECONNRESET): nothing of the request was handled, so it goes once more. A fresh socket's
      // failure, or one after the answer began, is the run's to report.
      if (!retry && req.reusedSocket && !answered) resolve(send(url, headers, body, true));
      else reject(error);
    });
    req.end(body);
  });
}

/** Lets the kept-alive connections go, so the benchmark's process can end. */
export function closePosts(): void {
  agent.destroy();
}
