// @ts-check
// Summaries of repeated measurements: every figure is reported as a
// statistic over n samples together with the smallest and largest sample.

/** The value at quantile `q` (0..1) of `values`, interpolating between neighbours. */
export function quantile(values, q) {
  if (values.length === 0) throw new Error("no samples to summarise");
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
}

/** `{ value, min, max, n }` where value is the median, or the quantile `q` when given. */
export function summarise(values, q = 0.5) {
  return {
    value: quantile(values, q),
    min: Math.min(...values),
    max: Math.max(...values),
    n: values.length,
  };
}

/** The same summary for a single deterministic measurement. */
export const exactly = (value) => ({ value, min: value, max: value, n: 1 });
