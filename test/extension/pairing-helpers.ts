/* eslint-disable @typescript-eslint/no-unsafe-member-access */
/**
 * Pairing from the extension's side, over real HTTP: its Origin is its identity, so every call carries
 * the extension origin the gateway allows by default.
 */
import { EXTENSION_ORIGIN } from '../../src/protocol/index.js';
import type { HttpResult, TestGateway } from '../gateway/fixtures/gateway.js';

export const extensionHeaders = { origin: EXTENSION_ORIGIN, authorization: '' };

export interface Started {
  pairing_id: string;
  code: string;
  approve_url: string;
  expires_in_seconds: number;
}

export async function startPairing(gw: TestGateway, name = 'tabgate test extension'): Promise<Started> {
  const result = await gw.request('POST', '/v1/browser-control/pair', {
    body: { name },
    headers: extensionHeaders,
  });
  if (result.status !== 201)
    throw new Error(`pairing start failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body as Started;
}

export function collect(gw: TestGateway, pairingId: string, origin = EXTENSION_ORIGIN): Promise<HttpResult> {
  return gw.request('POST', `/v1/browser-control/pair/${encodeURIComponent(pairingId)}/token`, {
    body: {},
    headers: { ...extensionHeaders, origin },
  });
}

/** The owner's credential, as `tabgate pair` sends it. */
export const asOperator = (gw: TestGateway) => ({ authorization: `Bearer ${gw.operatorKey}` });

/** Start → approve by code with the owner's operator key → collect: the token an approved extension holds. */
export async function pairedToken(gw: TestGateway): Promise<{ token: string; grantId: string }> {
  const started = await startPairing(gw);
  const approved = await gw.request('POST', '/v1/pairings/approve', {
    body: { code: started.code },
    headers: asOperator(gw),
  });
  if (approved.status !== 200) throw new Error(`approve failed: ${JSON.stringify(approved.body)}`);
  const collected = await collect(gw, started.pairing_id);
  if (collected.status !== 200) throw new Error(`collect failed: ${JSON.stringify(collected.body)}`);
  return { token: collected.body.token as string, grantId: collected.body.grant_id as string };
}

export const withToken = (token: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  ...extra,
});
