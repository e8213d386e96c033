/**
 * The browser engine: drives pages over CDP through a tiny transport (`CdpTransport`), so the same code
 * serves a local Chromium, a provider's CDP URL and, inside the extension, `chrome.debugger`. Imports
 * only protocol. Start at `BrowserEngine` (browser connection) or `Tab` + your own `TabHost`, then
 * `runTool`.
 */
export {
  type CdpTransport,
  type CdpEventListener,
  type CdpFailure,
  CdpError,
  CdpEventHub,
  CdpSession,
  cdpErrorFromResponse,
  isCdpFailure,
} from './transport.js';
export { BrowserEngine } from './browser-engine.js';
export { ContextSession } from './context-session.js';
export type { BrowserEngineOptions } from './browser-engine.js';
export {
  NetworkGuard,
  type FrameJudge,
  type HostJudge,
  type HostVerdict,
  type Refusal,
  type RefusalCode,
} from './network-guard.js';
export { Tab } from './tab.js';
export type { TabHost, EngineOptions, DownloadLedger } from './tab-host.js';
export { whenSettled } from './ledger-settle.js';
export type { RefCounter } from './refs.js';
export { runTool } from './tools.js';
export type { ActionGate } from './action-gate.js';
export { pageSnapshot } from './snapshot-pager.js';
export { INSTALL_EXPRESSION, WORLD_NAME } from './page/install.js';
