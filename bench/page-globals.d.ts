// What the bench leaves on the pages it drives (bench/page-scripts.mjs, and
// the pages of bench/client and bench/raw), for the bench to read back.
export {};

declare global {
  interface Window {
    /** Its traces of the app's workers and runs (page-scripts.mjs `watchSandpit`). */
    __benchSandpit: any;
    /** Its start-up times (page-scripts.mjs). */
    __benchLoad: any;
    /** The app's wasm memory, once Trunk has started it (page-scripts.mjs). */
    __benchAppMemory: WebAssembly.Memory | null;
    /** The target's driver on the page (page-scripts.mjs). */
    __bench: any;
    /** The animation frames' times while a scroll is measured (page-scripts.mjs `startFrameLog`). */
    __benchFrames: number[] | null;
    /** Each key typed into the editor: when pressed and when painted (page-scripts.mjs `typeIntoLongFile`). */
    __benchTyping: { keyAt: number; paintedAt: number }[];
    /** The embedding page's client (bench/client/main.mjs). */
    client: any;
    /** Raw Pyodide's page (bench/raw/main.mjs). */
    raw: any;
    /** The chat-UI path's page (bench/chat-ui/main.mjs). */
    chatUi: any;
  }

  // The elements the bench selects are the app's, all HTML elements.
  interface ParentNode {
    querySelector<E extends Element = HTMLElement>(selectors: string): E | null;
    querySelectorAll<E extends Element = HTMLElement>(selectors: string): NodeListOf<E>;
  }
}
