// @ts-check
// The official MCP SDK's client, @mcp-b/transports' iframe transport and zod
// (for a client's own request handlers), bundled for the browser as a chat
// UI would ship them: a page that loads the bundle finds them in `window.mcp`.
import { build } from "esbuild";

/** The bundle's text. */
export async function sdkBundle() {
  const { outputFiles } = await build({
    stdin: {
      contents: `
        import { Client } from "@modelcontextprotocol/sdk/client/index.js";
        import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
        import { IframeParentTransport } from "@mcp-b/transports";
        import { z } from "zod";
        window.mcp = { Client, IframeParentTransport, LoggingMessageNotificationSchema, z };
      `,
      resolveDir: process.cwd(),
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
  });
  return outputFiles[0].text;
}
