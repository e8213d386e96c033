/**
 * The dashboard's calls to its gateway: every request carries the owner's proof (kept in this origin's
 * localStorage by the sign-in page) next to the HttpOnly cookie the browser adds; every state change
 * also carries the page token the gateway hands out for this signed-in session. Errors come back typed
 * by the protocol's error table, so a code shown here is one the gateway can send.
 */
import type { ErrorBody, ErrorCode } from '../protocol/errors.js';

/** Where the sign-in page keeps the proof (src/gateway/operator/sign-in-page.ts). */
const PROOF_KEY = 'tabgate_operator_proof';
const PROOF_HEADER = 'x-tabgate-operator';
const CSRF_HEADER = 'x-tabgate-csrf';

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode | 'network',
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

let csrfToken = '';
export const setCsrfToken = (token: string): void => {
  csrfToken = token;
};

export function ownerHeaders(): Record<string, string> {
  return { [PROOF_HEADER]: localStorage.getItem(PROOF_KEY) ?? '' };
}

async function failure(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as ErrorBody | null;
  return new ApiError(
    (body?.error.code as ErrorCode | undefined) ?? 'internal_error',
    body?.error.message ?? `The gateway answered ${response.status}.`,
    response.status,
  );
}

export async function request(method: string, path: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      headers: {
        ...ownerHeaders(),
        ...(method === 'GET' ? {} : { [CSRF_HEADER]: csrfToken, 'content-type': 'application/json' }),
      },
      ...(method === 'GET' ? {} : { body: '{}' }),
    });
  } catch {
    throw new ApiError('network', 'The gateway did not answer.', 0);
  }
  if (!response.ok) throw await failure(response);
  return response;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await (await request('GET', path)).json()) as T;
}

export async function act<T>(method: 'POST' | 'DELETE', path: string): Promise<T> {
  return (await (await request(method, path)).json()) as T;
}

export async function signOut(): Promise<void> {
  await fetch('/operator/sign-out', { method: 'POST', credentials: 'same-origin', headers: ownerHeaders() });
  localStorage.removeItem(PROOF_KEY);
}
