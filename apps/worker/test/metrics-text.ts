/** Reading samples out of the Prometheus text format, for asserting what the worker's metrics say. */

/**
 * The value of one sample, named as it is printed (`name{label="value",...}`,
 * labels in the order of the metric's declaration), or undefined when absent.
 *
 * @example
 * sample(await registry.metrics(), 'snapshot_apply_total{outcome="completed"}') // 1
 */
export const sample = (text: string, series: string): number | undefined => {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
