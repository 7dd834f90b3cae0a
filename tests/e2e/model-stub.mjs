// @ts-check
// A stub model server for the Ask panel's tests. A model's API (OpenAI's
// Chat Completions, Anthropic's Messages) is an outside service we cannot
// run here, so this test double speaks both on loopback: each request gets
// the next scripted answer, streamed as server-sent events the way the real
// APIs stream them, or an HTTP error; every request is recorded.
import { createServer } from "node:http";

/**
 * One scripted answer. `text` pieces and tool `calls` (arguments as JSON
 * text, maybe in pieces) are streamed; `cut` ends the body before the API's
 * end marker; `hold` streams the text, then waits for the request to be
 * aborted; `status` answers with an HTTP error instead.
 *
 * @typedef {{
 *   text?: string[],
 *   calls?: { id: string, name: string, args: string | string[] }[],
 *   cut?: boolean,
 *   hold?: boolean,
 *   status?: number,
 *   body?: string,
 *   headers?: Record<string, string>,
 * }} Answer
 */

/**
 * A request the stub received.
 *
 * @typedef {{ api: "openai" | "anthropic", path: string, headers: import("node:http").IncomingHttpHeaders, body: any, at: number, aborted: boolean }} Received
 */

/** The events of an OpenAI Chat Completions stream for `answer`. @param {Answer} answer */
function openaiEvents(answer) {
  /** @param {object} delta @param {string | null} finish */
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-stub", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const events = [chunk({ role: "assistant", content: "" })];
  for (const piece of answer.text ?? []) events.push(chunk({ content: piece }));
  (answer.calls ?? []).forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const piece of [call.args].flat()) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  if (!answer.cut && !answer.hold) {
    events.push(chunk({}, answer.calls?.length ? "tool_calls" : "stop"));
    events.push("data: [DONE]\n\n");
  }
  return events;
}

/** The events of an Anthropic Messages stream for `answer`. @param {Answer} answer */
function anthropicEvents(answer) {
  /** @param {string} type @param {object} data */
  const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const events = [event("message_start", { message: { id: "msg_stub", type: "message", role: "assistant", content: [] } })];
  let index = 0;
  if (answer.text?.length) {
    events.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
    for (const piece of answer.text) events.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    events.push(event("content_block_stop", { index }));
    index += 1;
  }
  for (const call of answer.calls ?? []) {
    events.push(event("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }));
    for (const piece of [call.args].flat()) {
      events.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
    }
    events.push(event("content_block_stop", { index }));
    index += 1;
  }
  if (!answer.cut && !answer.hold) {
    events.push(event("message_delta", { delta: { stop_reason: answer.calls?.length ? "tool_use" : "end_turn" } }));
    events.push(event("message_stop", {}));
  }
  return events;
}

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "authorization, content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-expose-headers": "retry-after",
};

/**
 * Starts the stub on 127.0.0.1 (a free port). Its OpenAI-compatible API is
 * at `${url}/openai/v1`, its Anthropic one at `${url}/anthropic/v1`.
 */
export async function startModelStub() {
  /** @type {Answer[]} */
  const script = [];
  /** @type {Received[]} */
  const requests = [];
  /** @type {Set<import("node:http").ServerResponse>} */
  const open = new Set();
  const server = createServer((request, response) => {
    if (request.method === "OPTIONS") {
      response.writeHead(204, CORS).end();
      return;
    }
    const api = request.url?.startsWith("/anthropic/") ? "anthropic" : "openai";
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", async () => {
      /** @type {Received} */
      const received = {
        api,
        path: request.url ?? "",
        headers: request.headers,
        body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "null"),
        at: Date.now(),
        aborted: false,
      };
      requests.push(received);
      const answer = script.shift() ?? { status: 500, body: '{"error": {"message": "the stub has no answer scripted"}}' };
      if (answer.status !== undefined) {
        response.writeHead(answer.status, { ...CORS, "content-type": "application/json", ...answer.headers });
        response.end(answer.body ?? "");
        return;
      }
      open.add(response);
      response.on("close", () => {
        open.delete(response);
        if (!response.writableFinished) received.aborted = true;
      });
      response.writeHead(200, { ...CORS, "content-type": "text/event-stream", "cache-control": "no-cache" });
      const events = api === "anthropic" ? anthropicEvents(answer) : openaiEvents(answer);
      for (const event of events) {
        if (response.destroyed) return;
        response.write(event);
        // Streamed as the real APIs stream: event by event, not all at once.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      if (answer.hold) return; // until the client aborts (or the stub closes)
      response.end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    requests,
    /** Queues answers for the next requests, in order. @param {Answer[]} answers */
    script(...answers) {
      script.push(...answers);
    },
    /** Forgets what was recorded and scripted. */
    reset() {
      script.length = 0;
      requests.length = 0;
    },
    async close() {
      for (const response of open) response.destroy();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}
