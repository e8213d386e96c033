/**
 * Filling a vault secret (`browser_type {ref, secret}`), checked at the moment of the fill: the ref's
 * frame must have the secret's origin, by Chromium's own account of the frame's document and again by
 * our isolated world's, and the field's kind must fit the secret's (docs/secrets.md). Only then does the
 * value go in, as trusted input; every refusal types nothing. Errors name the frame's origin and the
 * field's kind, never the value.
 */
import { TabgateError, type SecretFill } from '../protocol/index.js';
import { bindingOf } from './actions.js';
import { staleError } from './frame-worlds.js';
import type { SecretFieldOutcome } from './page/agent-secrets.js';
import type { Tab } from './tab.js';

function mismatch(ref: string, fill: SecretFill, why: string): TabgateError {
  return new TabgateError(
    'secret_origin_mismatch',
    `The secret ${fill.name} (a ${fill.field} for ${fill.origin}) was not typed into ${ref}: ${why}.`,
  );
}

export async function fillSecret(tab: Tab, ref: string, fill: SecretFill): Promise<void> {
  const binding = bindingOf(tab, ref);
  const { worlds, contextId, localId } = binding;
  const browserOrigin = worlds.originOf(contextId);
  if (browserOrigin !== fill.origin) {
    throw mismatch(ref, fill, `its frame's origin is ${browserOrigin ?? 'unknown'}`);
  }
  const outcome = await worlds.run<SecretFieldOutcome>(contextId, 'secretField', {
    id: localId,
    origin: fill.origin,
    field: fill.field,
  });
  if (!outcome.ok) {
    switch (outcome.reason) {
      case 'stale':
        throw staleError();
      case 'origin':
        throw mismatch(ref, fill, `its frame's origin is ${outcome.found ?? 'unknown'}`);
      case 'field':
        throw mismatch(ref, fill, `it is a ${outcome.found ?? 'field'}, not a ${fill.field} field`);
      case 'disabled':
      case 'readonly':
        throw new TabgateError('element_not_interactable', `${ref} is ${outcome.reason}.`);
    }
  }
  // The page may have moved the focus since: the text goes wherever the focus is, so look once more.
  if (!(await worlds.run<boolean>(contextId, 'secretStillFocused', localId))) {
    throw new TabgateError(
      'element_not_interactable',
      `${ref} lost the focus before the secret went in; nothing was typed. Try again.`,
    );
  }
  await tab.page.send('Input.insertText', { text: fill.value });
  await worlds.run<boolean>(contextId, 'secretFilled', localId);
}
