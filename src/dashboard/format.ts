/** Small display helpers shared by the views. */
export const when = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' }) : '—';

export const duration = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '…' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;

export const argumentsText = (args: Record<string, unknown>): string => {
  const text = JSON.stringify(args);
  return text === '{}' ? '' : text.length > 160 ? text.slice(0, 157) + '…' : text;
};
