// What the tests leave on the pages they drive (through `page.evaluate` and
// `page.addInitScript`), and what those pages have that DOM's types leave out.
export {};

declare global {
  interface Window {
    /** Every message between the page and its Python worker, as the harness recorded it. */
    __sandpitMessages: any[];
    /** The workers the page created, with what the test noted of each (foundation.test.mjs). */
    __workers: any[];
    /** interrupt.test.mjs's own host of a Python worker. */
    __host: any;
    /** The app's wasm memory, once Trunk has started it (memory.test.mjs). */
    __appMemory: WebAssembly.Memory | null;
    /** An embedding page's Sandpit client (widget-client.test.mjs, widget-demo-sdk.test.mjs, memory.test.mjs). */
    sandpit: any;
    /** An MCP client of the widget, from the official SDK (widget-demo-sdk.test.mjs). */
    mcp: any;
    /** What an embedding page's functions heard (host-functions.test.mjs, host-attacks.test.mjs). */
    heard: any;
    /** The functions an embedding page offers (host-functions.test.mjs). */
    functions: any[];
    /** A function of the page that is not offered (host-attacks.test.mjs). */
    secret: () => void;
    /** The SDK client a host page connected to the widget (sdk-host.mjs). */
    client: any;
    /** The runtime states the status line showed, in order (pwa-serving.test.mjs). */
    __runtimeStates: string[];
    /** Chromium's find in page. */
    find(text: string): boolean;
  }

  interface Navigator {
    /** The testing shim of @mcp-b/webmcp-polyfill. */
    modelContextTesting: any;
    /** WebMCP's earlier place for the model context (the polyfill's, agents.test.mjs). */
    modelContext: any;
  }

  interface Document {
    /** WebMCP's model context (the polyfill's, agents.test.mjs). */
    modelContext: any;
  }

  // The elements the tests select are the app's, all HTML elements.
  interface ParentNode {
    querySelector<E extends Element = HTMLElement>(selectors: string): E | null;
    querySelectorAll<E extends Element = HTMLElement>(selectors: string): NodeListOf<E>;
  }
}
