/**
 * Browser-control protocol v1 constants. These values are the wire contract (docs/protocol.md "Constants"):
 * a controller written for the reference server must work against tabgate unchanged, so none of them
 * may be renamed or retuned.
 */
export const PROTOCOL_VERSION = 1;

export const REGISTER_PATH = '/v1/browser-control/register';
export const CONTROLLER_WS_PATH = '/v1/browser-control/ws';
export const CAPABILITIES_PATH = '/v1/capabilities';

export const CONTROLLER_SUBPROTOCOL = 'hermes-browser-control-v1';
export const TICKET_SUBPROTOCOL_PREFIX = 'hermes-browser-control-ticket.';

/** 32 random bytes, base64url without padding. */
export const TICKET_BYTES = 32;
export const TICKET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const TICKET_TTL_SECONDS = 30;

export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 30;
/** MV3 service workers sleep after ~30 s without data messages; ws pings do not count. */
export const SERVER_KEEPALIVE_INTERVAL_MS = 20_000;
export const SERVER_KEEPALIVE_NONCE_PREFIX = 'server-keepalive-';
export const DEFERRED_CANCEL_CAP = 512;

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8642;

/** tabgate limits on top of the protocol. */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;
export const MAX_JSON_BODY_BYTES = 1024 * 1024;
export const MAX_REGISTRATION_FIELD_CHARS = 256;
/** A call's tool_call_id (the HTTP API's `X-Tool-Call-Id`), carried into the command frame and the audit. */
export const MAX_TOOL_CALL_ID_CHARS = 256;
export const HEARTBEAT_NONCE_MAX_CHARS = 128;

export const TRANSPORT_FAMILIES = ['local-api', 'remote-api'] as const;
export type TransportFamily = (typeof TRANSPORT_FAMILIES)[number];

export const TRANSPORTS_ADVERTISED = {
  local_vps: 'websocket-subprotocol-ticket',
  cloud: 'authenticated-gateway-rpc',
} as const;
