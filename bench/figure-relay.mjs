// @ts-check
// Figure 4's relay row: a desktop MCP client's trivial call through
// Sandpit's MCP server to a paired tab (bench/relay.mjs), judged against the
// widget's agent path.
import { median, row } from "./figure-row.mjs";
import { formatMs } from "./format.mjs";
import { summarise } from "./stats.mjs";

/** How far over the widget's agent path a desktop client's call through the MCP server and a tab may be. */
const RELAY_OVER_AGENT_MS = 2;

/**
 * @param {any} relay what bench/relay.mjs measured
 * @param {any} sessions the round trips of every path
 */
export function relayRow(relay, sessions) {
  const agent = summarise(sessions["sandpit-client"].trivial.ms, 0.5);
  return row({
    id: "round_trip_trivial_p50_relay",
    figure: "4",
    title:
      "Round trip p50 for a trivial run (`1 + 1`), relay path (a desktop MCP client over stdio → Sandpit's MCP server → " +
      "a paired tab over its WebSocket), judged against the agent path's p50",
    unit: "ms",
    sandpit: summarise(relay.trivialMs, 0.5),
    raw: summarise(sessions.raw.trivial.ms, 0.5),
    target: {
      text: `≤ agent path + ${RELAY_OVER_AGENT_MS} ms (${formatMs(agent.value + RELAY_OVER_AGENT_MS)})`,
      met: (s) => s.value <= agent.value + RELAY_OVER_AGENT_MS,
    },
    note: () => {
      const busy = relay.tabMainThreadPerCall;
      return (
        `Of the relay path's ${formatMs(median(relay.trivialMs))} at the median, the tab had each call for ` +
        `${formatMs(median(relay.inTabMs))} (from its WebSocket hearing the call to the result leaving it); the rest is ` +
        `the client, stdio, the MCP server, the WebSocket both ways, and the wait for the tab's main thread to take the ` +
        `next call. That thread was busy ${formatMs(busy.task)} per call (script ${formatMs(busy.script)}, style ` +
        `${formatMs(busy.style)}, layout ${formatMs(busy.layout)}, the rest mostly painting): the tab shows every call's ` +
        `run in its run list, where the agent path's headless widget (${formatMs(agent.value)}) shows none.`
      );
    },
  });
}
