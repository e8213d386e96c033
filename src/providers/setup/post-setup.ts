/**
 * `post_setup`: the install hook a provider names (plugin.yaml or its setup schema), run after `tabgate
 * tools` stores its credentials. Only named steps from this list ever run: a plugin file is never a
 * place for a shell command. The reference system's steps installed its `agent-browser` CLI; tabgate
 * drives the CDP URL with its own engine, so they have nothing left to install and say so.
 */
export interface PostSetupOutcome {
  ran: boolean;
  message: string;
}

type Step = () => PostSetupOutcome;

const NOTHING_TO_INSTALL: Step = () => ({
  ran: true,
  message: 'Setup step done: nothing to install, tabgate drives the remote browser with its own engine.',
});

const STEPS: Readonly<Record<string, Step>> = {
  agent_browser: NOTHING_TO_INSTALL,
  agent_browser_cli: NOTHING_TO_INSTALL,
  browserbase: NOTHING_TO_INSTALL,
};

export const POST_SETUP_STEPS: readonly string[] = Object.keys(STEPS);

export function runPostSetup(step: string): PostSetupOutcome {
  const run = Object.hasOwn(STEPS, step) ? STEPS[step] : undefined;
  if (run) return run();
  return {
    ran: false,
    message: `Setup step ${JSON.stringify(step.slice(0, 80))} was not run: it is not one tabgate knows (${POST_SETUP_STEPS.join(', ')}). Ask the plugin's author for a named step.`,
  };
}
