/** Builds the loadable extension folder into `outDir`; returns it. */
export function buildExtension(options: { root: string; outDir: string }): Promise<string>;
