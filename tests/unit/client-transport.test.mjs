// @ts-check
// The embedding client's reading of the widget's messages and its widget
// URL (www/sandpit-transport.js), on messages as the widget sends them.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  HOST_CALL_METHOD,
  IFRAME_CHANNEL,
  IFRAME_MCP_TYPE,
  IFRAME_SERVER_READY,
  IFRAME_TO_CLIENT,
  IFRAME_TO_SERVER,
  PROGRESS_STREAM_META,
  WIDGET_EVENT_TYPE,
  WIDGET_RESIZED,
} from "../../www/generated/names.js";
import { readWidgetMessage, textOf, widgetPage } from "../../www/sandpit-transport.js";

/** @param {unknown} payload */
const fromWidget = (payload) => ({ channel: IFRAME_CHANNEL, type: IFRAME_MCP_TYPE, direction: IFRAME_TO_CLIENT, payload });

describe("readWidgetMessage", () => {
  test("the widget's height and readiness", () => {
    assert.deepEqual(readWidgetMessage({ channel: IFRAME_CHANNEL, type: WIDGET_EVENT_TYPE, event: WIDGET_RESIZED, height: 321 }), {
      kind: "resized",
      height: 321,
    });
    assert.deepEqual(readWidgetMessage(fromWidget(IFRAME_SERVER_READY)), { kind: "ready" });
  });

  test("output as log messages and as progress, status as progress without a stream", () => {
    const log = { jsonrpc: "2.0", method: "notifications/message", params: { data: { requestId: 4, stream: "stderr", text: "oops\n" } } };
    assert.deepEqual(readWidgetMessage(fromWidget(log)), { kind: "stderr", id: 4, text: "oops\n" });
    /** @param {Record<string, unknown>} _meta */
    const progress = (_meta) => ({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p12", progress: 1, message: "hi\n", _meta },
    });
    assert.deepEqual(readWidgetMessage(fromWidget(progress({ [PROGRESS_STREAM_META]: "stdout" }))), { kind: "stdout", id: 12, text: "hi\n" });
    assert.deepEqual(readWidgetMessage(fromWidget(progress({ [PROGRESS_STREAM_META]: "stderr" }))), { kind: "stderr", id: 12, text: "hi\n" });
    assert.deepEqual(readWidgetMessage(fromWidget(progress({}))), { kind: "status", id: 12, text: "hi\n" });
  });

  test("answers, with their result or error", () => {
    assert.deepEqual(readWidgetMessage(fromWidget({ jsonrpc: "2.0", id: 2, result: { ok: 1 } })), {
      kind: "answer",
      id: 2,
      result: { ok: 1 },
      error: undefined,
    });
    const error = { code: -32602, message: "bad" };
    assert.deepEqual(readWidgetMessage(fromWidget({ jsonrpc: "2.0", id: 3, error })), { kind: "answer", id: 3, result: undefined, error });
  });

  test("the widget's own requests (a host call), and its cancelling one", () => {
    const call = { jsonrpc: "2.0", id: 5, method: HOST_CALL_METHOD, params: { name: "lookup", arguments: { city: "Paris" } } };
    assert.deepEqual(readWidgetMessage(fromWidget(call)), { kind: "request", id: 5, method: HOST_CALL_METHOD, params: call.params });
    const cancelled = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5, reason: "the run was stopped" } };
    assert.deepEqual(readWidgetMessage(fromWidget(cancelled)), { kind: "cancelled", id: 5 });
  });

  test("anything else is nothing the client knows", () => {
    for (const data of [
      null,
      "text",
      { channel: "other", type: IFRAME_MCP_TYPE, direction: IFRAME_TO_CLIENT, payload: IFRAME_SERVER_READY },
      { channel: IFRAME_CHANNEL, type: IFRAME_MCP_TYPE, direction: IFRAME_TO_SERVER, payload: { id: 1, result: {} } },
      fromWidget({ jsonrpc: "2.0", method: "notifications/message", params: { data: { requestId: 1, stream: "stdin" } } }),
      fromWidget({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }),
    ]) {
      assert.deepEqual(readWidgetMessage(data), { kind: "other" }, JSON.stringify(data));
    }
  });
});

describe("widgetPage", () => {
  test("widget.html beside the client, asked for what the options say", () => {
    const page = widgetPage(undefined, "https://sandpit.example/app/sandpit-client.js", {
      theme: "dark",
      headless: true,
      order: "oldest-first",
      hideCode: true,
      hideJson: true,
    });
    assert.equal(page.origin + page.pathname, "https://sandpit.example/app/widget.html");
    assert.deepEqual(Object.fromEntries(page.searchParams), { theme: "dark", headless: "", order: "oldest-first", hide: "code,json" });
  });

  test("a given URL as it is, with the defaults left unsaid", () => {
    const page = widgetPage("https://other.example/w.html?x=1", "https://sandpit.example/sandpit-client.js", {
      order: "newest-first",
      hideJson: true,
    });
    assert.equal(page.href, "https://other.example/w.html?x=1&hide=json");
  });
});

test("textOf joins a tool result's text blocks", () => {
  assert.equal(textOf({ content: [{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }] }), "a\nb");
  assert.equal(textOf({}), "");
});
