// @ts-check
// Numbers as the report shows them.

const number = (value, digits) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function formatMs(ms) {
  return `${number(ms, ms >= 100 ? 0 : ms >= 10 ? 1 : 2)} ms`;
}

export function formatBytes(bytes) {
  if (Math.abs(bytes) >= 1e6) return `${number(bytes / 1e6, 2)} MB`;
  if (Math.abs(bytes) >= 1e3) return `${number(bytes / 1e3, 1)} KB`;
  return `${bytes} B`;
}

/** A value in a figure's unit: "ms", "bytes", "runs/s", "%" or "programs". */
export function formatValue(unit, value) {
  switch (unit) {
    case "ms":
      return formatMs(value);
    case "bytes":
      return formatBytes(value);
    case "runs/s":
      return `${number(value, 1)} runs/s`;
    case "%":
      return `${value >= 0 ? "+" : ""}${number(value, 1)} %`;
    case "programs":
      return `${number(value, 0)} programs`;
    default:
      throw new Error(`unknown unit ${unit}`);
  }
}

/** Two decimals, or two significant digits below 0.1× (recovery beats raw by orders of magnitude). */
export const formatRatio = (ratio) =>
  ratio > 0 && ratio < 0.1 ? `${ratio.toPrecision(2)}×` : `${number(ratio, 2)}×`;
