/**
 * Draws a status into the popup: one section per phase, each with its own words and only the buttons
 * that make sense there. It never writes into a field the person is editing or has edited.
 */
import type { Phase, StatusView } from '../messages.js';

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

const CONNECTION_TEXT: Record<string, string> = {
  idle: 'connecting…',
  connecting: 'connecting…',
  connected: 'connected',
  offline: 'reconnecting…',
  stopped: 'stopped',
};

const PILL: Record<Exclude<Phase, 'sharing'>, { text: string; tone: string }> = {
  unpaired: { text: 'not paired', tone: 'idle' },
  pairing: { text: 'pairing…', tone: 'connecting' },
  revoked: { text: 'revoked', tone: 'stopped' },
  feature_off: { text: 'extension control off', tone: 'stopped' },
  unreachable: { text: 'gateway unreachable', tone: 'offline' },
  paired: { text: 'not sharing', tone: 'idle' },
};

/** Which phases show which section; everything else is hidden. */
const SECTIONS: Record<string, Phase[]> = {
  unpaired: ['unpaired', 'revoked'],
  pairing: ['pairing'],
  'feature-off': ['feature_off'],
  unreachable: ['unreachable'],
  shared: ['sharing'],
  'sessions-box': ['paired'],
  'paired-footer': ['feature_off', 'unreachable', 'paired', 'sharing'],
};

/** True once the person typed in the gateway field: from then on the field is theirs. */
let gatewayEdited = false;
$('gateway-url').addEventListener('input', () => {
  gatewayEdited = true;
});

/** The problem the state itself carries (not an action's failure): shown until the state changes. */
export function stateProblem(view: StatusView): string | null {
  if (view.phase === 'unpaired' || view.phase === 'revoked') return view.pairing_error?.message ?? null;
  if (view.phase === 'sharing' && ['offline', 'stopped'].includes(view.connection.state))
    return view.connection.error?.message ?? null;
  return null;
}

export function render(view: StatusView): void {
  for (const [id, phases] of Object.entries(SECTIONS)) $(id).hidden = !phases.includes(view.phase);
  const pill =
    view.phase === 'sharing'
      ? { text: CONNECTION_TEXT[view.connection.state] ?? view.connection.state, tone: view.connection.state }
      : PILL[view.phase];
  $('connection').textContent = pill.text;
  $('connection').className = `pill ${pill.tone}`;

  const revoked = view.phase === 'revoked';
  $('unpaired-text').textContent = revoked
    ? "This browser's pairing was revoked — Pair again."
    : 'Not paired. Pair this browser with the tabgate gateway on this computer.';
  $('pair').textContent = revoked ? 'Pair again' : 'Pair with gateway';
  const input = $<HTMLInputElement>('gateway-url');
  if (!gatewayEdited && document.activeElement !== input) input.value = view.gateway_url;

  if (view.pending_pairing) {
    $('code').textContent = view.pending_pairing.code;
    $('approve-command').textContent = `tabgate pair approve ${view.pending_pairing.code}`;
    $<HTMLAnchorElement>('approve-link').href = view.pending_pairing.approve_url;
  }
  $('unreachable-text').textContent =
    `The tabgate gateway at ${view.gateway_url} is not reachable. Start it with tabgate serve; ` +
    'this updates by itself.';
  $('paired-as').textContent = view.paired ? `Paired as ${view.paired.name}` : '';
  if (view.phase === 'sharing' && view.share) {
    $('shared-with').textContent = view.share.title?.trim() || view.share.session_id;
    const count = view.share.tab_ids.length;
    $('shared-tabs').textContent = `${count} tab${count === 1 ? '' : 's'} shared`;
  }
}
