/**
 * The few Chrome DevTools Protocol shapes the engine reads, written down once. Only the fields we use;
 * see https://chromedevtools.github.io/devtools-protocol/ for the rest.
 */
export interface TargetInfo {
  targetId: string;
  type: string;
  title: string;
  url: string;
  attached: boolean;
  openerId?: string;
  browserContextId?: string;
}

export interface AttachedToTarget {
  sessionId: string;
  targetInfo: TargetInfo;
  waitingForDebugger: boolean;
}

export interface FrameInfo {
  id: string;
  parentId?: string;
  loaderId: string;
  url: string;
  name?: string;
  /** Set on an error page: the address that failed to load. */
  unreachableUrl?: string;
}

export interface FrameTree {
  frame: FrameInfo;
  childFrames?: FrameTree[];
}

export interface ExecutionContextDescription {
  id: number;
  name: string;
  /** The frame's security origin as the browser sees it (`null` for a sandboxed frame). */
  origin?: string;
  auxData?: { frameId?: string; isDefault?: boolean; type?: string };
}

export interface RemoteObject {
  type: string;
  subtype?: string;
  value?: unknown;
  description?: string;
  objectId?: string;
}

export interface ExceptionDetails {
  text: string;
  lineNumber?: number;
  url?: string;
  exception?: RemoteObject;
}

export interface CallFunctionResult {
  result: RemoteObject;
  exceptionDetails?: ExceptionDetails;
}

export interface ConsoleApiCalled {
  type: string;
  args: RemoteObject[];
  executionContextId: number;
  stackTrace?: { callFrames: { url: string; lineNumber: number }[] };
}

export interface JavascriptDialogOpening {
  url: string;
  message: string;
  type: 'alert' | 'confirm' | 'prompt' | 'beforeunload';
}

export interface LifecycleEvent {
  frameId: string;
  loaderId: string;
  name: string;
}

export interface ResponseReceived {
  loaderId: string;
  type?: string;
  frameId?: string;
  response: { url: string; status: number };
}

export interface FrameRequestedNavigation {
  frameId: string;
  reason: string;
  url: string;
  disposition: 'currentTab' | 'newTab' | 'newWindow' | 'download';
}

export interface RequestWillBeSent {
  loaderId: string;
  type?: string;
  frameId?: string;
  request: { url: string };
  /** Present when this request follows a redirect: the response that redirected. */
  redirectResponse?: { url: string; status: number };
}

export interface NavigationHistory {
  currentIndex: number;
  entries: { id: number; url: string; title: string }[];
}
