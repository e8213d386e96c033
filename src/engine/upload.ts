/**
 * Setting files on a file input (`DOM.setFileInputFiles`), with paths the gateway already checked
 * against `browser.upload_roots`. The input fires its input and change events as a user's choice does.
 */
import { TabgateError, type UploadResult } from '../protocol/index.js';
import { bindingOf } from './actions.js';
import { staleError, type PageAgent } from './frame-worlds.js';
import type { CallFunctionResult } from './cdp-types.js';
import type { Tab } from './tab.js';

function pageFiles(agent: PageAgent, id: number): UploadResult['uploaded'] | 'stale' | 'not_file' {
  const el = agent.lookup(id);
  if (!el) return 'stale';
  if (!(el instanceof HTMLInputElement) || el.type !== 'file') return 'not_file';
  return [...(el.files ?? [])].map((file) => ({ name: file.name, size: file.size }));
}

export async function upload(tab: Tab, ref: string, paths: readonly string[]): Promise<UploadResult> {
  const binding = bindingOf(tab, ref);
  const { worlds, contextId, localId } = binding;
  const before = await worlds.call(contextId, pageFiles, localId);
  if (before === 'stale') throw staleError();
  if (before === 'not_file') {
    throw new TabgateError('element_not_interactable', `${ref} is not a file input (input type=file).`);
  }
  const element = await worlds.session.send<CallFunctionResult>('Runtime.callFunctionOn', {
    functionDeclaration: 'function (id) { return globalThis.__tabgate.lookup(id); }',
    executionContextId: contextId,
    arguments: [{ value: localId }],
    returnByValue: false,
  });
  const objectId = element.result.objectId;
  if (!objectId) throw staleError();
  try {
    await worlds.session.send('DOM.setFileInputFiles', { files: [...paths], objectId });
  } finally {
    await worlds.session.send('Runtime.releaseObject', { objectId }).catch(() => undefined);
  }
  const after = await worlds.call(contextId, pageFiles, localId);
  if (typeof after === 'string') throw staleError();
  return { uploaded: after };
}
