// @ts-check
// The embedding page's functions that the code may call (`from sandpit
// import host`): checked when the client is made, offered to the widget at
// `initialize` (their handlers stay in this page), and called when the
// widget asks for one.
import { ERROR_INVALID_PARAMS, HOST_CALL_METHOD, HOST_FUNCTIONS_CAPABILITY } from "./generated/names.js";
import { SandpitError } from "./sandpit-transport.js";

/**
 * A function of this page that the code may call (`from sandpit import
 * host`, then `await host.<name>(...)`): its `parameters` are a JSON Schema
 * of type "object", which the widget checks the arguments against before
 * `handler(args, { signal })` runs; `signal` aborts when the run is stopped.
 * What the handler resolves to goes back to Python as JSON; what it throws,
 * as `sandpit.HostFunctionError` with its message.
 *
 * @typedef {{
 *   name: string,
 *   description?: string,
 *   parameters?: object,
 *   handler: (args: any, context: { signal: AbortSignal }) => unknown,
 * }} HostFunction
 */

/** The functions one client offers, and their handlers. */
export class HostFunctions {
  /**
   * The handlers of the functions offered, by name.
   *
   * @type {Map<string, HostFunction["handler"]>}
   */
  #handlers = new Map();
  /** What `initialize` offers of them, or null when there are none. */
  #offer;

  /**
   * Checks `functions`; `sessions`, when given, are the only sessions whose
   * code may call them.
   *
   * @param {HostFunction[]} functions
   * @param {string[]} [sessions]
   */
  constructor(functions, sessions) {
    for (const { name, handler } of functions) {
      if (typeof name !== "string" || typeof handler !== "function") {
        throw new SandpitError("functions: each needs a `name` (a string) and a `handler` (a function)", ERROR_INVALID_PARAMS);
      }
      this.#handlers.set(name, handler);
    }
    this.#offer = functions.length
      ? {
          functions: functions.map(({ name, description, parameters }) => ({ name, description: description ?? "", inputSchema: parameters ?? { type: "object" } })),
          ...(sessions ? { sessions } : {}),
        }
      : null;
  }

  /** The client's capabilities at `initialize`: the functions offered, if any. */
  get capabilities() {
    return this.#offer ? { experimental: { [HOST_FUNCTIONS_CAPABILITY]: this.#offer } } : {};
  }

  /**
   * A call of one of the functions, from the code: the widget checked its
   * name and arguments; the handler's value goes back as JSON.
   *
   * @param {string} method
   * @param {any} params
   * @param {AbortSignal} signal
   */
  async answer(method, params, signal) {
    const handler = method === HOST_CALL_METHOD ? this.#handlers.get(params?.name) : undefined;
    if (!handler) throw new Error(`this page answers no ${method} for ${JSON.stringify(params?.name)}`);
    const value = await handler(params.arguments, { signal });
    return { value: value === undefined ? null : value };
  }
}
