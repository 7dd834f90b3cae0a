// @ts-check
// One MCP server for one client: a 2025-11-25 session (Streamable HTTP) or
// stdio connection, or one 2026-07-28 request. It offers the tools of
// src/tools.json, each with its MCP App view; the app-only tools a view
// hands its work back with are there only for a client that shows views.
import { getUiCapability, registerAppResource, registerAppTool, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";

import tools from "../../src/tools.json" with { type: "json" };
import { PROGRESS_STREAM_META } from "../../www/generated/names.js";
import { viewCsp, viewHtml } from "./view.mjs";
import { CLAIM_TOOL, OUTPUT_TOOL, RESULT_TOOL } from "./view-tools.mjs";

/**
 * The tools, as every surface offers them (JSON Schema, as Rust writes it).
 *
 * @type {{ name: string, title: string, description: string, inputSchema: any, outputSchema: any, annotations: Record<string, unknown> }[]}
 */
const TOOLS = tools;

/**
 * What every client's server shares.
 *
 * @typedef {{
 *   calls: import("./calls.mjs").Calls,
 *   bundleUrl: string,
 *   viewScript: () => Promise<string>,
 *   version: string,
 * }} Shared
 */

/**
 * Whether a client shows MCP App views, by the capabilities it declared.
 *
 * @param {unknown} capabilities
 */
export function showsViews(capabilities) {
  const ui = getUiCapability(/** @type {import("@modelcontextprotocol/server").ClientCapabilities | undefined} */ (capabilities));
  return ui?.mimeTypes?.includes(RESOURCE_MIME_TYPE) ?? false;
}

/**
 * A server for one client of protocol generation `era`; `views`: whether it shows views.
 *
 * @param {Shared} shared
 * @param {{ era: "legacy" | "modern", views: boolean }} client
 */
export function newServer({ calls, bundleUrl, viewScript, version }, { era, views }) {
  // Logging is deprecated from 2026-07-28 on: there output streams as progress only.
  const logging = era === "legacy" ? { logging: {} } : {};
  const server = new McpServer(
    { name: "sandpit", title: "Sandpit", version },
    { capabilities: { tools: {}, resources: {}, ...logging } },
  );
  for (const tool of TOOLS) {
    const uri = `ui://sandpit/${tool.name}.html`;
    registerAppTool(
      server,
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: fromJsonSchema(tool.inputSchema),
        outputSchema: fromJsonSchema(tool.outputSchema),
        annotations: tool.annotations,
        _meta: { ui: { resourceUri: uri } },
      },
      /** @type {any} */ (
        async (/** @type {Record<string, any>} */ args, /** @type {import("@modelcontextprotocol/server").ServerContext} */ ctx) =>
          await calls.call(tool.name, args, { views, signal: ctx.mcpReq.signal, onOutput: streamTo(ctx) })
      ),
    );
    registerAppResource(
      server,
      `Sandpit: ${tool.title}`,
      uri,
      { description: `Runs ${tool.name} in Sandpit in the browser and shows it.` },
      async () => ({
        contents: [
          {
            uri,
            mimeType: RESOURCE_MIME_TYPE,
            text: viewHtml(tool.name, bundleUrl, await viewScript()),
            _meta: { ui: { csp: viewCsp(bundleUrl), prefersBorder: true } },
          },
        ],
      }),
    );
  }
  if (views) registerViewTools(server, calls);
  return server;
}

/**
 * The app-only tools: a view claims its call, hands on its output, and hands back its result.
 *
 * @param {McpServer} server
 * @param {import("./calls.mjs").Calls} calls
 */
function registerViewTools(server, calls) {
  const appOnly = { resourceUri: `ui://sandpit/run_python.html`, visibility: /** @type {"app"[]} */ (["app"]) };
  const answer = (/** @type {boolean} */ accepted) => ({
    content: [{ type: /** @type {const} */ ("text"), text: accepted ? "accepted" : "no such call is waiting" }],
  });
  registerAppTool(
    server,
    CLAIM_TOOL,
    {
      description: "Sandpit's view takes the tool call it was shown for.",
      inputSchema: fromJsonSchema({
        type: "object",
        properties: { tool: { type: "string" }, arguments: { type: "object" } },
        required: ["tool", "arguments"],
      }),
      _meta: { ui: appOnly },
    },
    /** @type {any} */ (
      async (/** @type {{ tool: string, arguments: Record<string, any> }} */ { tool, arguments: args }) => {
        const claimed = calls.claim(tool, args);
        return {
          content: [{ type: "text", text: claimed ? "claimed" : "no such call is waiting" }],
          structuredContent: claimed ?? { call: null, replay: [] },
        };
      }
    ),
  );
  registerAppTool(
    server,
    OUTPUT_TOOL,
    {
      description: "Sandpit's view hands on output of the call it claimed, as the code writes it.",
      inputSchema: fromJsonSchema({
        type: "object",
        properties: { call: { type: "string" }, stream: { enum: ["stdout", "stderr"] }, text: { type: "string" } },
        required: ["call", "stream", "text"],
      }),
      _meta: { ui: appOnly },
    },
    /** @type {any} */ (
      async (/** @type {{ call: string, stream: "stdout" | "stderr", text: string }} */ { call, stream, text }) =>
        answer(calls.output(call, stream, text))
    ),
  );
  registerAppTool(
    server,
    RESULT_TOOL,
    {
      description:
        "Sandpit's view hands back the result of the call it claimed, and which of the session's replayed runs failed.",
      inputSchema: fromJsonSchema({
        type: "object",
        properties: {
          call: { type: "string" },
          result: {
            type: "object",
            properties: { content: { type: "array" }, structuredContent: { type: "object" }, isError: { type: "boolean" } },
            required: ["content"],
          },
          failed: {
            type: "array",
            items: {
              type: "object",
              properties: { seq: { type: "integer" }, reason: { type: "string" } },
              required: ["seq", "reason"],
            },
          },
        },
        required: ["call", "result"],
      }),
      _meta: { ui: appOnly },
    },
    /** @type {any} */ (
      async (/** @type {{ call: string, result: any, failed?: { seq: number, reason: string }[] }} */ { call, result, failed = [] }) => {
        const { content, structuredContent, isError } = result;
        return answer(calls.complete(call, { content, structuredContent, isError: isError === true }, failed));
      }
    ),
  );
}

/**
 * Sends a call's output to its client as the browser writes it, as the
 * widget does: when the call has a progress token, the message of
 * notifications/progress, whose `_meta` names the stream; and, in the
 * 2025-11-25 generation, notifications/message (logger "stdout" or
 * "stderr", within the client's logging level).
 *
 * @param {import("@modelcontextprotocol/server").ServerContext} ctx
 * @returns {import("./calls.mjs").OnOutput}
 */
function streamTo(ctx) {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  let progress = 0;
  const sent = (/** @type {Promise<void>} */ sending) => sending.catch(() => {
    // The client went away: the call's result will find nobody either.
  });
  return (stream, text) => {
    // A no-op where the server declared no logging (2026-07-28).
    sent(ctx.mcpReq.log("info", { requestId: ctx.mcpReq.id, stream, text }, stream));
    if (progressToken === undefined) return;
    progress += 1;
    const params = { progressToken, progress, message: text, _meta: { [PROGRESS_STREAM_META]: stream } };
    sent(ctx.mcpReq.notify({ method: "notifications/progress", params }));
  };
}
