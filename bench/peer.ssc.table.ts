// What the SSC peer's mappings share: a table of SSC variables, SSC's two ways of running a project
// (lifetime mode, or SAM's default single-year mode), and the refusal of what SAM cannot say.

/** A number, an array, a string or a matrix (rows of equal length). */
export type SscValue = number | readonly number[] | string | { matrix: readonly (readonly number[])[] };
export type SscTable = Record<string, SscValue>;

/**
 * `lifetime`: every module runs the analysis period (PVWatts repeats its year 25 times, degrading
 * it); `single_year`: SAM's default, one year of each generator and the degradation applied by
 * the financial model to year 1's net energy.
 */
export type SscMode = 'lifetime' | 'single_year';
export const SSC_MODES: readonly SscMode[] = ['lifetime', 'single_year'];

export class NotMappable extends Error {}
export const refuse = (what: string): never => {
  throw new NotMappable(`not mappable onto SSC: ${what}`);
};
