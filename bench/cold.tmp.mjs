import { serve } from "../scripts/serve.mjs";
import { measureLoads } from "./loads.mjs";
import { sandpitTarget, rawTarget } from "./targets.mjs";
const app = await serve({ root: "dist" });
const raw = await serve({ root: "/tmp/bench-raw" });
try {
  const loads = await measureLoads([sandpitTarget(app.url), rawTarget(raw.url)], Number(process.env.N ?? 3), () => {});
  for (const [name, l] of Object.entries(loads)) for (const s of l) console.log(name, "cold workerAt", Math.round(s.cold.workerAt), "ready", Math.round(s.cold.readyAt), "| warm workerAt", Math.round(s.warm.workerAt), "ready", Math.round(s.warm.readyAt));
} finally { await app.close(); await raw.close(); }
