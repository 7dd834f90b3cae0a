// @ts-check
// Reading and writing the host<->worker messages (HostMessage and
// WorkerMessage in src/protocol/messages.rs): every message is an object with one
// field, named for its kind: `{ done: { id, result } }`.

/**
 * @import { BodyOf, WorkerMessage } from "../www/generated/protocol.js"
 */

/**
 * The one field of a message: its kind and what it carries.
 *
 * @param {unknown} message
 * @returns {{ kind: string | undefined, body: any }}
 */
export function tagOf(message) {
  const [kind, body] = Object.entries(message ?? {})[0] ?? [];
  return { kind, body };
}

/**
 * The runner's output callback for run `id`, capped to `limitBytes` on this
 * side too: Python can find it in the runner's frame and call it directly,
 * and must not flood the host. Anything but text on stdout or stderr is dropped.
 *
 * @param {(body: BodyOf<WorkerMessage, "stream">) => void} send
 * @param {number} id
 * @param {number} limitBytes
 * @returns {(stream: unknown, text: unknown) => void}
 */
export function emitter(send, id, limitBytes) {
  let room = limitBytes;
  return (stream, text) => {
    if ((stream !== "stdout" && stream !== "stderr") || typeof text !== "string") return;
    if (room <= 0) return;
    const kept = text.length > room ? text.slice(0, room) : text;
    room -= kept.length;
    send({ id, chunk: { stream, text: kept } });
  };
}

/**
 * What went wrong, for the caller: a Python exception as its last line
 * ("Type: message"), without the traceback through the runner.
 *
 * @param {unknown} error
 */
export function pythonMessage(error) {
  const { message, type } = /** @type {{ message?: string, type?: string }} */ (error ?? {});
  if (type && message) return message.trimEnd().split("\n").at(-1) ?? message;
  return String(message ?? error);
}
