// @ts-check
// Starts Sandpit's local MCP server (mcp-server/) as a process, on loopback,
// for the tests of that server; each test file stops what it started.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SERVER = join(ROOT, "mcp-server", "sandpit-mcp.mjs");
/** The pairing token the tests start the server with. */
export const TOKEN = "test-pairing-token";

/**
 * Starts the server with Streamable HTTP; resolves once it listens.
 *
 * @param {string[]} [args]
 * @returns {Promise<{ url: string, mcpUrl: string, tabUrl: string, log: string[], stop: () => Promise<void> }>}
 */
export function startHttpServer(args = []) {
  const child = spawn(process.execPath, [SERVER, "--http", "--port", "0", ...args], {
    env: { ...process.env, SANDPIT_PAIRING_TOKEN: TOKEN },
    stdio: ["ignore", "ignore", "pipe"],
  });
  /** @type {string[]} */
  const log = [];
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    let buffered = "";
    /** @type {string | null} */
    let tabUrl = null;
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        log.push(line);
        tabUrl ??= line.match(/open (http:\S+)/)?.[1] ?? null;
        const mcpUrl = line.match(/Streamable HTTP at (http:\S+)/)?.[1];
        if (mcpUrl && tabUrl) resolve({ url: new URL("/", mcpUrl).href, mcpUrl, tabUrl, log, stop });
      }
    });
    child.once("exit", (code) => reject(new Error(`the MCP server exited (${code}): ${log.join("\n")}`)));
  });
}
